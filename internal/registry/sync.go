package registry

import (
	"context"
	"fmt"
	"time"

	"github.com/freshctx/freshctx/internal/store"
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

// VerifyResult is what `registry verify` found (and applied, with --apply).
type VerifyResult struct {
	Head     string    `json:"head"`
	Verdicts []Verdict `json:"verdicts"`
	Counts
	Candidates int    `json:"candidates"`
	Fallback   string `json:"fallback,omitempty"`
	Applied    bool   `json:"applied"`
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
		status, serr := g.StatusFiles(ctx)
		if serr != nil {
			return nil, serr
		}
		if st.exists && st.clean && !status.Dirty() && status.Behind == 0 && status.Head != "" && status.Head == st.lastSHA {
			res = &SyncResult{Action: ActionTrust, Head: status.Head, Files: rows}
		} else {
			res, err = s.syncVerify(ctx, st)
		}
	}
	if err != nil {
		return nil, err
	}
	res.ElapsedMS = time.Since(start).Milliseconds()
	return res, nil
}

func (s *Service) syncVerify(ctx context.Context, st state) (*SyncResult, error) {
	ex, err := s.examine(ctx, st)
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

// Verify examines the candidates and reports a verdict for each; with apply
// it also writes them, as sync's verify does.
func (s *Service) Verify(ctx context.Context, apply bool) (*VerifyResult, error) {
	start := time.Now()
	var st state
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		st, err = loadState(ctx, tx, s.WS.Root)
		return err
	})
	if err != nil {
		return nil, err
	}
	ex, err := s.examine(ctx, st)
	if err != nil {
		return nil, err
	}
	if apply {
		if err := s.apply(ctx, ex); err != nil {
			return nil, err
		}
	}
	res := &VerifyResult{Head: ex.head, Verdicts: ex.verdicts, Counts: ex.counts, Candidates: ex.candidates,
		Fallback: ex.fallback, Applied: apply, ElapsedMS: time.Since(start).Milliseconds()}
	if res.Verdicts == nil {
		res.Verdicts = []Verdict{}
	}
	return res, nil
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
