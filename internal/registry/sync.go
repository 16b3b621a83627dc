package registry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/workspace"
)

// Sync actions.
const (
	ActionEmpty     = "empty"
	ActionBootstrap = "bootstrap"
	ActionTrust     = "trust"
	ActionVerify    = "verify"
)

// SyncResult is what `registry sync` did.
type SyncResult struct {
	Action string `json:"action"`
	Head   string `json:"head"`
	// Files is the number of registered files afterwards.
	Files int `json:"files"`
	Counts
	Skipped    int    `json:"skipped"`
	Candidates int    `json:"candidates"`
	Fallback   string `json:"fallback,omitempty"`
	ElapsedMS  int64  `json:"elapsed_ms"`
}

// Sync runs the entry-state matrix (see the package doc).
func (s *Service) Sync(ctx context.Context) (*SyncResult, error) {
	start := time.Now()
	g, err := s.git()
	if err != nil {
		return nil, err
	}
	var st state
	var rows int
	err = s.Store.View(ctx, func(tx *store.Tx) error {
		if st, err = loadState(ctx, tx, s.WS.Root); err != nil {
			return err
		}
		rows, err = countRows(ctx, tx, s.WS.Root)
		return err
	})
	if err != nil {
		return nil, err
	}
	var res *SyncResult
	if rows == 0 {
		res, err = s.bootstrap(ctx)
	} else {
		var tc trustCheck
		if tc, err = s.trusted(ctx, g, st); err == nil && tc.ok {
			res = &SyncResult{Action: ActionTrust, Head: tc.head, Files: tc.rows}
		} else if err == nil {
			res, err = s.syncVerify(ctx, st, tc.seen)
		}
	}
	if err != nil {
		return nil, err
	}
	res.ElapsedMS = time.Since(start).Milliseconds()
	return res, nil
}

// trustCheck is what trusted found: whether the registry is trusted,
// HEAD, the rows it scanned, and, when it asked git what an examination
// of a registry this large asks, that view and the rows that moved, for
// the examination to take rather than ask and scan again.
type trustCheck struct {
	ok   bool
	head string
	rows int
	seen *looked
}

// trusted reports whether the registry can be trusted without reading a
// file: it was verified on a clean tree at HEAD, HEAD has not moved and is
// not behind its upstream, nothing is staged, every untracked file git
// lists is one the registry already knows, and freshctx's own fingerprint of
// every row (and of every watched path) is the settled one stored with it.
// git is asked only what it can answer without touching the tracked files
// (the fingerprints cover those, and better); the lstat of every row runs
// alongside it.
func (s *Service) trusted(ctx context.Context, g *workspace.Git, st state) (trustCheck, error) {
	if !st.exists || !st.clean {
		return trustCheck{}, nil
	}
	snap, err := s.snapshot(ctx)
	if err != nil {
		return trustCheck{}, err
	}
	var moved []string
	var v gitView
	var rows int
	errs := make([]error, 3)
	var wg sync.WaitGroup
	wg.Go(func() { moved, rows, errs[0] = s.moved(ctx, snap) })
	wg.Go(func() { v.untracked, errs[1] = g.Untracked(ctx) })
	v.head, v.behind, v.staged, errs[2] = g.HeadView(ctx)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return trustCheck{}, err
	}
	tc := trustCheck{head: v.head, rows: rows}
	if rows >= cmp.Or(s.WholeStatusUnder, smallRegistry) {
		tc.seen = &looked{view: v, moved: moved} // what look would ask and scan
	}
	if v.head == "" || v.head != st.lastSHA || v.behind > 0 || len(v.staged) > 0 || len(moved) > 0 {
		return tc, nil
	}
	tc.ok, err = s.known(ctx, v.untracked)
	return tc, err
}

// known reports whether every path is a row or a watched path: an untracked
// file the registry has not seen makes the tree changed.
func (s *Service) known(ctx context.Context, paths []string) (bool, error) {
	var files []string
	for _, p := range paths {
		if !strings.HasSuffix(p, "/") {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		return true, nil
	}
	n := 0
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		for i := 0; i < len(files); i += 500 {
			part := files[i:min(i+500, len(files))]
			args := []any{s.WS.Root}
			for _, p := range part {
				args = append(args, p)
			}
			args = append(args, args...) // once per table
			in := "(?" + strings.Repeat(",?", len(part)-1) + ")"
			var c int
			q := `SELECT (SELECT count(*) FROM registry_files WHERE root = ? AND path IN ` + in + `)
				+ (SELECT count(*) FROM registry_gone WHERE root = ? AND path IN ` + in + `)`
			if err := tx.QueryRowContext(ctx, q, args...).Scan(&c); err != nil {
				return err
			}
			n += c
		}
		return nil
	})
	return n >= len(files), err
}

func (s *Service) syncVerify(ctx context.Context, st state, seen *looked) (*SyncResult, error) {
	ex, err := s.examineFrom(ctx, st, seen)
	if err != nil {
		return nil, err
	}
	if err := s.apply(ctx, ex); err != nil {
		return nil, err
	}
	res := &SyncResult{Action: ActionVerify, Head: ex.head, Counts: ex.counts, Skipped: len(ex.skips),
		Candidates: ex.candidates, Fallback: ex.fallback}
	err = s.Store.View(ctx, func(tx *store.Tx) error {
		res.Files, err = countRows(ctx, tx, s.WS.Root)
		return err
	})
	return res, err
}

// bootstrap registers every tracked or untracked, non-ignored file with its
// digest and no summary; a tree with no files is left alone.
func (s *Service) bootstrap(ctx context.Context) (*SyncResult, error) {
	g, err := s.git()
	if err != nil {
		return nil, err
	}
	files, err := g.LsFiles(ctx)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		head, err := g.ResolveCommit(ctx, "HEAD")
		return &SyncResult{Action: ActionEmpty, Head: head}, err
	}
	// With no rows and no state, every file is a candidate: the full pass
	// is the bootstrap.
	ex, err := s.examine(ctx, state{})
	if err != nil {
		return nil, err
	}
	if err := s.apply(ctx, ex); err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	return &SyncResult{Action: ActionBootstrap, Head: ex.head, Files: ex.counts.New, Counts: ex.counts,
		Skipped: len(ex.skips), Candidates: ex.candidates}, nil
}
