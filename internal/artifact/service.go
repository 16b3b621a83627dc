package artifact

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/workspace"
)

// Service caches artifacts of one workspace.
type Service struct {
	WS    *workspace.Workspace
	Store *store.Store
	// Cwd is the caller's working directory, for paths they type.
	Cwd string
	// Now is the clock; default time.Now.
	Now func() time.Time
	// RacyWindow overrides freshness.RacyWindow (tests on a file system with
	// a known timestamp granularity); 0 keeps the default.
	RacyWindow time.Duration
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// place is where the workspace is now.
type place struct {
	repo, ref, commit, tree string
}

// here reads the repository id (cached per root in the store, since it
// walks history), the ref and the commit and tree, in one git process.
func (s *Service) here(ctx context.Context) (place, error) {
	if s.WS.Git == nil {
		return place{repo: "path:" + s.WS.Root}, nil
	}
	h, err := s.WS.Git.ReadHead(ctx)
	if err != nil {
		return place{}, err
	}
	p := place{ref: refOf(h.Branch, h.Commit), commit: h.Commit, tree: h.Tree}
	p.repo, err = s.repoID(ctx)
	return p, err
}

// refOf is the ref an artifact is filed under: the branch, or the commit
// when HEAD is detached.
func refOf(branch, commit string) string {
	if branch == "" {
		return commit
	}
	return branch
}

// repoID names the repository by its root commit, cached per root in the
// store since finding it walks history; "path:ROOT" outside git and before
// the first commit.
func (s *Service) repoID(ctx context.Context) (string, error) {
	if s.WS.Git == nil {
		return "path:" + s.WS.Root, nil
	}
	key := "fabric.repo_id:" + s.WS.Root
	var id string
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		id, _, err = tx.Meta(key)
		return err
	})
	if err != nil || id != "" {
		return id, err
	}
	if id, err = s.WS.Git.RepoID(ctx); err != nil {
		return "", err
	}
	if id == "" {
		return "path:" + s.WS.Root, nil // no commit yet: nothing to cache
	}
	if s.Store.ReadOnly() {
		return id, nil // found again by the next process
	}
	err = s.Store.Update(ctx, func(tx *store.Tx) error { return tx.SetMeta(key, id) })
	if store.Unwritable(err) {
		err = nil // found again by the next process
	}
	return id, err
}

// snapshot reads the workspace for paths. It asks git nothing: where HEAD
// is comes from here, and a file's stamp is freshctx's own.
func (s *Service) snapshot(ctx context.Context, paths []string) (*freshness.Snapshot, error) {
	return freshness.NewSnapshot(ctx, s.WS, paths, freshness.Options{
		Cache: freshness.StoreCache{S: s.Store}, Now: s.now, RacyWindow: s.RacyWindow,
	})
}

// resolve turns user paths into root-relative ones, refusing escapes.
func (s *Service) resolve(paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		rel, err := s.WS.Rel(p, s.Cwd)
		if err != nil {
			return nil, fmt.Errorf("--dep: %w", err)
		}
		if !slices.Contains(out, rel) {
			out = append(out, rel)
		}
	}
	return out, nil
}

func event(ctx context.Context, tx *store.Tx, kind, repo, typ, key string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO artifact_events (at, kind, repo, type, key) VALUES (?, ?, ?, ?, ?)`,
		tx.Now.UnixNano(), kind, repo, typ, key)
	if err != nil {
		return fmt.Errorf("count %s: %w", kind, err)
	}
	return nil
}
