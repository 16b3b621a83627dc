package readcache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/freshctx/freshctx/internal/store"
)

// TranscriptReadTo returns how far an agent's transcript at path has been
// read for session (see SetTranscriptReadTo): 0 when it never was, or
// when what was read was another file.
func (s *Service) TranscriptReadTo(ctx context.Context, session, path string) (int64, error) {
	var at int64
	var was string
	err := s.Store.DB().QueryRowContext(ctx, `SELECT path, read_to FROM rc_transcripts WHERE session = ?`, session).
		Scan(&was, &at)
	switch {
	case errors.Is(err, sql.ErrNoRows), err == nil && was != path:
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("transcript of session %s: %w", session, err)
	}
	return at, nil
}

// SetTranscriptReadTo records that session's transcript at path has been
// read up to byte to: an integration that finds, in what an agent writes
// there, a context reset no hook reported (Claude Code's /rewind) reads
// each part once.
func (s *Service) SetTranscriptReadTo(ctx context.Context, session, path string, to int64) error {
	return s.Store.Update(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO rc_transcripts (session, path, read_to) VALUES (?, ?, ?)
			ON CONFLICT (session) DO UPDATE SET path = excluded.path, read_to = excluded.read_to`, session, path, to)
		return err
	})
}
