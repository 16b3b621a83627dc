package records

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/tokens"
)

// countPending makes the token counts of records kept without them
// (Options.TokensLater) from their kept output and digest, as the run would
// have made them, and keeps them in the store. A record whose output can
// no longer be read (its blob deleted by hand; doctor reports it) gets the
// tokens of what could be read, marked inexact, and stays uncounted in the
// store.
func (s *Service) countPending(ctx context.Context, recs []*Record) {
	var todo, made []*Record
	for _, r := range recs {
		if !r.Counted() {
			todo = append(todo, r)
		}
	}
	if len(todo) >= manyCounts && s.Progress != nil {
		fmt.Fprintf(s.Progress, "freshctx: counting the tokens of %d records kept without counts (once; about %d s)\n",
			len(todo), len(todo)/countsPerSecond+1)
	}
	for _, r := range todo {
		if s.countRecord(r) {
			made = append(made, r)
		}
	}
	if len(made) > 0 {
		s.keepCounts(ctx, made)
	}
}

// manyCounts is how many counts to make at once before Progress is told;
// countsPerSecond is about how fast they are made (2,000 small records in
// 0.12 s).
var manyCounts = 5000 // a variable for tests

const countsPerSecond = 15000

// keepCounts stores the counts made. A store that cannot be written
// (read-only, busy past its timeout) only costs the next reader the same
// count: the counts returned are made either way, so the error is not one.
func (s *Service) keepCounts(ctx context.Context, made []*Record) {
	_ = s.Store.Update(ctx, func(tx *store.Tx) error {
		for _, r := range made {
			_, err := tx.ExecContext(ctx, `UPDATE records SET raw_tokens = ?, raw_tokens_exact = ?, digest_tokens = ?
				WHERE id = ? AND (raw_tokens = ? OR digest_tokens = ?)`,
				r.RawTokens, r.RawTokensExact, r.DigestTokens, r.ID, NotCounted, NotCounted)
			if err != nil {
				return fmt.Errorf("keep the token counts of record %d: %w", r.ID, err)
			}
		}
		return nil
	})
}

// countRecord makes r's counts and reports whether its whole output could
// be read.
func (s *Service) countRecord(r *Record) bool {
	raw, exact, whole := 0, true, true
	for _, h := range r.blobs {
		n, e, err := s.countBlob(h)
		if err != nil {
			whole, exact = false, false
		}
		raw, exact = raw+n, exact && e
	}
	r.RawTokens, r.RawTokensExact = raw, exact
	r.DigestTokens = tokens.Count(r.Digest)
	return whole
}

// countBlob counts one kept stream as its sink's counter counted it: the
// same bytes, through the same counter.
func (s *Service) countBlob(h string) (int, bool, error) {
	rc, err := s.openStream(h)
	if err != nil {
		return 0, false, err
	}
	defer rc.Close()
	var c tokens.Counter
	_, err = io.Copy(&c, rc)
	n, exact := c.Total()
	return n, exact, err
}

// pendingCounts makes and keeps the counts of every record kept without
// them, or of those of ids that are, and returns them by record id.
func (s *Service) pendingCounts(ctx context.Context, ids []int64) (map[int64]*Record, error) {
	var recs []*Record
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, digest, coalesce(stdout_blob, ''), coalesce(stderr_blob, ''),
			raw_tokens, digest_tokens FROM records WHERE raw_tokens = ? OR digest_tokens = ?`, NotCounted, NotCounted)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r := &Record{}
			if err := rows.Scan(&r.ID, &r.Digest, &r.blobs[0], &r.blobs[1], &r.RawTokens, &r.DigestTokens); err != nil {
				return err
			}
			if ids == nil || slices.Contains(ids, r.ID) {
				recs = append(recs, r)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("find records not counted yet: %w", err)
	}
	s.countPending(ctx, recs)
	byID := make(map[int64]*Record, len(recs))
	for _, r := range recs {
		byID[r.ID] = r
	}
	return byID, nil
}
