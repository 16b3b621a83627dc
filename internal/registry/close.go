package registry

import (
	"context"
	"fmt"
	"slices"

	"github.com/freshctx/freshctx/internal/store"
)

// CloseResult is what `registry close` did for a commit.
type CloseResult struct {
	Commit string `json:"commit"`
	// Updated are the registered files the commit touched, re-digested (or
	// removed when the commit deleted them).
	Updated []string `json:"updated"`
	// NeedsSummary are touched files with no summary or one that no longer
	// matches their content.
	NeedsSummary    []string `json:"needs_summary"`
	LastVerifiedSHA string   `json:"last_verified_sha"`
	// Advanced is false when the commit does not follow the last verified
	// one directly (or is not HEAD): run sync to verify the rest.
	Advanced bool `json:"advanced"`
}

// Close records a task's commit: the paths it touched are re-digested,
// those whose summary no longer matches are flagged, and the last verified
// commit advances when rev is HEAD and its parent was the last verified.
func (s *Service) Close(ctx context.Context, rev string) (*CloseResult, error) {
	g, err := s.git()
	if err != nil {
		return nil, err
	}
	if rev == "" {
		rev = "HEAD"
	}
	commit, err := g.ResolveCommit(ctx, rev)
	if err != nil {
		return nil, err
	}
	if commit == "" {
		return nil, fmt.Errorf("close: %q names no commit", rev)
	}
	changes, err := g.CommitChanges(ctx, commit)
	if err != nil {
		return nil, err
	}
	st, err := s.readState(ctx)
	if err != nil {
		return nil, err
	}
	// The commit's paths, and every row whose file may have changed (its
	// fingerprint moved): the verified commit only advances when every row
	// is known to match the work tree.
	ex, err := s.examineClose(ctx, changes)
	if err != nil {
		return nil, err
	}
	touched := map[string]bool{}
	for _, c := range changes {
		touched[c.Path] = true
	}
	res := &CloseResult{Commit: commit, Updated: []string{}, NeedsSummary: []string{}, LastVerifiedSHA: st.lastSHA}
	if ok, err := s.advances(ctx, st, commit, ex.head); err != nil {
		return nil, err
	} else if ok {
		res.Advanced, res.LastVerifiedSHA = true, commit
	}
	drifts := s.drifts(ex)
	err = s.Store.Update(ctx, func(tx *store.Tx) error {
		if err := carryRenames(ctx, tx, s.WS.Root, ex); err != nil {
			return err
		}
		for _, v := range ex.verdicts {
			if err := s.applyOne(ctx, tx, ex, v, drifts[v.Path]); err != nil {
				return err
			}
			if !touched[v.Path] && v.Verdict == Match {
				continue
			}
			res.Updated = append(res.Updated, v.Path)
			if r := ex.rows[v.Path]; v.Verdict == New || (v.Verdict != Missing && (!r.summary.Valid || drifts[v.Path].stale || r.stale)) {
				res.NeedsSummary = append(res.NeedsSummary, v.Path)
			}
		}
		if err := writeSkips(ctx, tx, s.WS.Root, ex); err != nil {
			return err
		}
		if err := writeGone(ctx, tx, s.WS.Root, ex); err != nil {
			return err
		}
		if res.Advanced {
			return saveState(ctx, tx, s.WS.Root, commit, ex.clean)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// advances reports whether closing commit moves the last verified commit:
// commit is HEAD and the last verified commit is one of its parents.
func (s *Service) advances(ctx context.Context, st state, commit, head string) (bool, error) {
	if !st.exists || commit != head {
		return false, nil
	}
	parents, err := s.WS.Git.Parents(ctx, commit)
	if err != nil {
		return false, err
	}
	return slices.Contains(parents, st.lastSHA) || st.lastSHA == commit, nil
}
