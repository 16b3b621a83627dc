package records

import (
	"context"
	"fmt"
	"strconv"

	"github.com/freshctx/freshctx/internal/rank"
	"github.com/freshctx/freshctx/internal/store"
)

// partsBatch is how many older records one run re-indexes.
const partsBatch = 2000

// indexOldParts gives the index rows of records made before the index held
// the parts of compound words those parts, a batch per run, newest first:
// in a store of 100,000 records every record is found by part of a name
// after 50 runs, the recent ones after the first.
func (s *Service) indexOldParts(ctx context.Context) error {
	due := false
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		v, ok, err := tx.Meta("records.parts_below")
		due = ok && v != "1"
		return err
	})
	if err != nil || !due {
		return err
	}
	return s.Store.Update(ctx, func(tx *store.Tx) error {
		v, ok, err := tx.Meta("records.parts_below")
		if err != nil || !ok {
			return err
		}
		below, err := strconv.ParseInt(v, 10, 64)
		if err != nil || below <= 1 {
			return tx.SetMeta("records.parts_below", "1")
		}
		from := max(below-partsBatch, 1)
		rows, err := tx.QueryContext(ctx, `SELECT rowid, command, label, digest, facts FROM records_fts
			WHERE rowid >= ? AND rowid < ?`, from, below)
		if err != nil {
			return fmt.Errorf("re-index: %w", err)
		}
		type row struct {
			id                            int64
			command, label, digest, facts string
		}
		var todo []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.command, &r.label, &r.digest, &r.facts); err != nil {
				rows.Close()
				return err
			}
			todo = append(todo, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, r := range todo {
			facts := r.facts + "\n" + rank.PartsText(r.command, r.label, r.digest, r.facts)
			// An FTS5 row is changed by deleting and inserting it.
			if _, err := tx.ExecContext(ctx, `DELETE FROM records_fts WHERE rowid = ?`, r.id); err != nil {
				return fmt.Errorf("re-index %d: %w", r.id, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO records_fts(rowid, command, label, digest, facts)
				VALUES (?, ?, ?, ?, ?)`, r.id, r.command, r.label, r.digest, facts); err != nil {
				return fmt.Errorf("re-index %d: %w", r.id, err)
			}
		}
		return tx.SetMeta("records.parts_below", strconv.FormatInt(from, 10))
	})
}
