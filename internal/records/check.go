package records

import (
	"context"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/workspace"
)

// CheckAll sets the Freshness of every record, reading each workspace once:
// one snapshot per distinct root among the records. It runs no git: each
// file is lstat'ed, and hashed only when its fingerprint moved.
func (s *Service) CheckAll(ctx context.Context, recs []*Record) error {
	byRoot := map[string][]*Record{}
	for _, r := range recs {
		byRoot[r.root] = append(byRoot[r.root], r)
	}
	for root, group := range byRoot {
		if err := s.checkRoot(ctx, root, group); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) checkRoot(ctx context.Context, root string, recs []*Record) error {
	ws := s.WS
	if root != s.WS.Root {
		var err error
		if ws, err = workspace.Open(root); err != nil {
			ws = &workspace.Workspace{Root: root} // gone: every file is unknown
		}
	}
	var paths []string
	seen := map[string]bool{}
	for _, r := range recs {
		for _, f := range r.stamp.Files {
			if !seen[f.Path] {
				seen[f.Path] = true
				paths = append(paths, f.Path)
			}
		}
	}
	snap, err := freshness.NewSnapshot(ctx, ws, paths, freshness.Options{
		Cache: freshness.StoreCache{S: s.Store}, Now: s.now, RacyWindow: s.RacyWindow,
	})
	if err != nil {
		return err
	}
	for _, r := range recs {
		res, err := snap.Check(ctx, r.stamp)
		if err != nil {
			return err
		}
		r.Freshness = &res
	}
	return snap.Flush(ctx)
}
