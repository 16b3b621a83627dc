package registry

import (
	"context"
	"fmt"
	"strings"

	"github.com/freshctx/freshctx/internal/store"
)

// apply writes an examination in one transaction: new rows, new digests
// (a summary whose file changed is kept and flagged stale, with how much it
// drifted), deleted rows, skips, work-tree flags, and the verified commit.
func (s *Service) apply(ctx context.Context, ex *examination) error {
	drifts := s.drifts(ex)
	root := s.WS.Root
	verdicts := ex.verdicts
	for first := true; first || len(verdicts) > 0; first = false {
		part := verdicts[:min(len(verdicts), applyChunk)]
		verdicts = verdicts[len(part):]
		last := len(verdicts) == 0
		err := s.Store.Update(ctx, func(tx *store.Tx) error {
			if first {
				if err := carryRenames(ctx, tx, root, ex); err != nil {
					return err
				}
			}
			for _, v := range part {
				if err := s.applyOne(ctx, tx, ex, v, drifts[v.Path]); err != nil {
					return err
				}
			}
			if !last {
				return applyFault(len(part))
			}
			if err := writeSkips(ctx, tx, root, ex); err != nil {
				return err
			}
			if err := writeGone(ctx, tx, root, ex); err != nil {
				return err
			}
			return saveState(ctx, tx, root, ex.head, ex.clean)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// applyChunk bounds the rows one transaction of an apply writes: the
// store's write lock is held for a fraction of a second at a time, so a
// run beside a bootstrap of a large repository never waits on it. A
// chunk written is a set of rows each right for its file; the registry's
// state (the commit it was verified at) is saved with the last, so an
// apply stopped between chunks is examined whole by the next sync. A
// variable for the tests.
var applyChunk = 1000

// applyFault lets a test stop an apply between chunks; nil otherwise.
var applyFault = func(int) error { return nil }

type driftInfo struct {
	stale          bool
	added, removed int
}

// drifts measures, before the transaction, how far each changed file with
// a summary moved from the content the summary describes.
func (s *Service) drifts(ex *examination) map[string]driftInfo {
	out := map[string]driftInfo{}
	for _, v := range ex.verdicts {
		r := ex.rows[v.Path]
		if v.Verdict != Mismatch || !r.summary.Valid {
			continue
		}
		f := ex.seen[v.Path]
		if r.digestAtSummary.String == f.digest {
			out[v.Path] = driftInfo{} // back to what the summary describes
			continue
		}
		d := driftInfo{stale: true}
		if a, rm, ok := s.drift(r.summaryBlob.String, v.Path); ok {
			d.added, d.removed = a, rm
		}
		out[v.Path] = d
	}
	return out
}

func (s *Service) applyOne(ctx context.Context, tx *store.Tx, ex *examination, v Verdict, d driftInfo) error {
	root, p := s.WS.Root, v.Path
	f := ex.seen[p]
	var err error
	switch v.Verdict {
	case Missing:
		_, err = tx.ExecContext(ctx, `DELETE FROM registry_files WHERE root = ? AND path = ?`, root, p)
	case New:
		if v.carried {
			break
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO registry_files (root, path, digest, size, lang, worktree, fp, fp_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, root, p, f.digest, f.size, language(p), f.worktree, f.fp, f.fpAt)
	case Mismatch:
		_, err = tx.ExecContext(ctx, `UPDATE registry_files SET digest = ?, size = ?, worktree = ?, fp = ?, fp_at = ?,
			summary_stale = ?, lines_added = ?, lines_removed = ? WHERE root = ? AND path = ?`,
			f.digest, f.size, f.worktree, f.fp, f.fpAt, d.stale, d.added, d.removed, root, p)
	case Match:
		_, err = tx.ExecContext(ctx, `UPDATE registry_files SET worktree = ?, fp = ?, fp_at = ? WHERE root = ? AND path = ?`,
			f.worktree, f.fp, f.fpAt, root, p)
	}
	if err != nil {
		return fmt.Errorf("registry %s %s: %w", v.Verdict, p, err)
	}
	return nil
}

// writeSkips records which candidates are skipped and why; a skipped file
// that had a row loses it.
func writeSkips(ctx context.Context, tx *store.Tx, root string, ex *examination) error {
	for p := range ex.rows {
		if _, skipped := ex.skips[p]; skipped {
			if _, err := tx.ExecContext(ctx, `DELETE FROM registry_files WHERE root = ? AND path = ?`, root, p); err != nil {
				return err
			}
		}
	}
	was, err := skippedOf(ctx, tx, root, ex.cands)
	if err != nil {
		return err
	}
	for _, p := range ex.cands {
		reason, skipped := ex.skips[p]
		old, listed := was[p]
		var err error
		switch {
		case skipped && (!listed || old != reason):
			_, err = tx.ExecContext(ctx, `INSERT INTO registry_skipped (root, path, reason) VALUES (?, ?, ?)
				ON CONFLICT(root, path) DO UPDATE SET reason = excluded.reason`, root, p, reason)
		case !skipped && listed: // no longer skipped, or gone: off the skip list
			_, err = tx.ExecContext(ctx, `DELETE FROM registry_skipped WHERE root = ? AND path = ?`, root, p)
		}
		if err != nil {
			return fmt.Errorf("registry skip %s: %w", p, err)
		}
	}
	return nil
}

// skippedOf reads the skip list's reasons for the given paths, 500 to a
// query: a bootstrap writes only the skips that changed, not a statement
// per file of the tree inside the transaction that holds the write lock.
func skippedOf(ctx context.Context, tx *store.Tx, root string, paths []string) (map[string]string, error) {
	out := map[string]string{}
	for i := 0; i < len(paths); i += 500 {
		part := paths[i:min(i+500, len(paths))]
		args := []any{root}
		for _, p := range part {
			args = append(args, p)
		}
		rows, err := tx.QueryContext(ctx, `SELECT path, reason FROM registry_skipped WHERE root = ? AND path IN (?`+
			strings.Repeat(",?", len(part)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("read the skip list: %w", err)
		}
		for rows.Next() {
			var p, reason string
			if err := rows.Scan(&p, &reason); err != nil {
				rows.Close()
				return nil, err
			}
			out[p] = reason
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("read the skip list: %w", err)
		}
	}
	return out, nil
}

// writeGone keeps the fingerprint of every candidate that has no row, so a
// file appearing or changing there is examined again, and forgets the
// paths that now have one.
func writeGone(ctx context.Context, tx *store.Tx, root string, ex *examination) error {
	for p, f := range ex.norow {
		_, err := tx.ExecContext(ctx, `INSERT INTO registry_gone (root, path, fp, fp_at) VALUES (?, ?, ?, ?)
			ON CONFLICT(root, path) DO UPDATE SET fp = excluded.fp, fp_at = excluded.fp_at`, root, p, f.fp, f.fpAt)
		if err != nil {
			return fmt.Errorf("registry watch %s: %w", p, err)
		}
	}
	for p := range ex.forget {
		if _, err := tx.ExecContext(ctx, `DELETE FROM registry_gone WHERE root = ? AND path = ?`, root, p); err != nil {
			return err
		}
	}
	if len(ex.seen) == 0 {
		return nil
	}
	gone, err := loadFingerprints(ctx, tx, `SELECT path, fp, fp_at FROM registry_gone WHERE root = ?`, root)
	if err != nil {
		return err
	}
	for _, g := range gone {
		if _, ok := ex.seen[g.path]; ok {
			if _, err := tx.ExecContext(ctx, `DELETE FROM registry_gone WHERE root = ? AND path = ?`, root, g.path); err != nil {
				return err
			}
		}
	}
	return nil
}
