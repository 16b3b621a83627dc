package registry

import (
	"context"
	"fmt"

	"github.com/freshctx/freshctx/internal/store"
)

// carryRenames keeps the summary of a file that moved: a new path whose
// content is the very content a missing path's summary describes takes that
// summary over, as it stood (stale or not).
func carryRenames(ctx context.Context, tx *store.Tx, root string, ex *examination) error {
	gone := map[string]row{} // digest → a missing row with a summary
	for _, v := range ex.verdicts {
		if r := ex.rows[v.Path]; v.Verdict == Missing && r.summary.Valid {
			gone[r.digest] = r
		}
	}
	if len(gone) == 0 {
		return nil
	}
	for i, v := range ex.verdicts {
		if v.Verdict != New {
			continue
		}
		r, ok := gone[ex.seen[v.Path].digest]
		if !ok {
			continue
		}
		delete(gone, r.digest)
		f := ex.seen[v.Path]
		_, err := tx.ExecContext(ctx, `INSERT INTO registry_files (root, path, digest, size, lang, worktree, fp, fp_at,
			summary, summary_stale, summary_updated_at, digest_at_summary, summary_blob, lines_added, lines_removed)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			root, v.Path, f.digest, f.size, language(v.Path), f.worktree, f.fp, f.fpAt,
			r.summary, r.stale, r.summaryAt, r.digestAtSummary, r.summaryBlob, r.added, r.removed)
		if err != nil {
			return fmt.Errorf("registry rename %s → %s: %w", r.path, v.Path, err)
		}
		ex.verdicts[i].carried = true
	}
	return nil
}
