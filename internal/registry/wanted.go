package registry

import (
	"context"

	"github.com/freshctx/freshctx/internal/store"
)

// Wanted is a registered file without a current summary: none, or one of
// other content. Digest is its content's now, as the registry last saw it.
type Wanted struct {
	Path   string
	Digest string
}

// SummariesWanted lists the registered files without a current summary,
// for a summary of the same bytes written elsewhere (a teammate's) to fill.
func (s *Service) SummariesWanted(ctx context.Context) ([]Wanted, error) {
	var out []Wanted
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT path, digest FROM registry_files
			WHERE root = ? AND digest <> '' AND (summary IS NULL OR summary_stale = 1 OR digest_at_summary <> digest)
			ORDER BY path`, s.WS.Root)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var w Wanted
			if err := rows.Scan(&w.Path, &w.Digest); err != nil {
				return err
			}
			out = append(out, w)
		}
		return rows.Err()
	})
	return out, err
}

// Current lists the registered files whose summary describes their
// content now, with it: what a team may be given. Summaries from the team
// are not given back to it, nor those a model wrote (the team store keeps
// no model, endpoint or prompt to name them by).
func (s *Service) Current(ctx context.Context) ([]Summary, []string, error) {
	var sums []Summary
	var digests []string
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT path, digest, summary FROM registry_files
			WHERE root = ? AND summary IS NOT NULL AND summary_stale = 0 AND digest_at_summary = digest AND summary_by IN ('', 'agent', 'person')
			ORDER BY path`, s.WS.Root)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var sum Summary
			var d string
			if err := rows.Scan(&sum.Path, &d, &sum.Summary); err != nil {
				return err
			}
			sums, digests = append(sums, sum), append(digests, d)
		}
		return rows.Err()
	})
	return sums, digests, err
}
