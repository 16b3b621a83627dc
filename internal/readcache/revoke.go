package readcache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/freshctx/freshctx/internal/store"
)

// Revoke takes back a read that was counted as delivered but did not reach
// the model after all: an MCP client that cancels a call ignores its answer,
// even one already on its way. The read stops being trust. Every later
// answer about the same file that leaned on trust (unchanged,
// unchanged_range, diff), in any session, may have vouched for what this
// read showed, so the model's hold on the file is unknown from it on: it is
// marked revoked, and erases the file's picture where it stands (dropping
// it instead would roll the picture back to a version the model may have
// moved past, and the next diff would start from the wrong text). Every
// session holding trust in the file is rebuilt from its entries. Taking
// back more than was lost costs a full read later; taking back less would
// leave an "unchanged" the model cannot back.
func (s *Service) Revoke(ctx context.Context, res *ReadResult) error {
	return s.Store.Update(ctx, func(tx *store.Tx) error {
		var path, session string
		err := tx.QueryRowContext(ctx, `SELECT path, session FROM rc_entries WHERE id = ? AND kind = 'read'`, res.Entry).
			Scan(&path, &session)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // gone with its session: nothing trusts it
		}
		if err != nil {
			return fmt.Errorf("revoke entry %d: %w", res.Entry, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE rc_entries SET delivered = 0 WHERE id = ?`, res.Entry); err != nil {
			return fmt.Errorf("revoke entry %d: %w", res.Entry, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE rc_entries SET revoked = 1
			WHERE kind = 'read' AND path = ? AND id > ? AND mode IN (?, ?, ?)`,
			path, res.Entry, ModeUnchanged, ModeUnchangedRange, ModeDiff); err != nil {
			return fmt.Errorf("revoke entry %d: %w", res.Entry, err)
		}
		return rebuildTrusting(ctx, tx, path, session)
	})
}

// rebuildTrusting rebuilds the trust of session and of every session that
// holds trust in path.
func rebuildTrusting(ctx context.Context, tx *store.Tx, path, session string) error {
	rows, err := tx.QueryContext(ctx, `SELECT name, leaf FROM rc_sessions
		WHERE name = ? OR name IN (SELECT session FROM rc_trust WHERE path = ?)`, session, path)
	if err != nil {
		return err
	}
	leaves := map[string]int64{}
	for rows.Next() {
		var name string
		var leaf sql.NullInt64
		if err := rows.Scan(&name, &leaf); err != nil {
			rows.Close()
			return err
		}
		leaves[name] = leaf.Int64
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for name, leaf := range leaves {
		if err := rebuild(ctx, tx, name, leaf); err != nil {
			return fmt.Errorf("rebuild session %s: %w", name, err)
		}
	}
	return nil
}
