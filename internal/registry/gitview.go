package registry

import (
	"cmp"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"maps"
	"os"
	"slices"
	"sync"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/workspace"
)

// gitView is what an incremental examination asks git, none of which makes
// git lstat the tracked files (freshctx's fingerprints cover those): HEAD
// and its upstream, what the index stages against HEAD, and the untracked
// files. A full status is run only for a full pass.
type gitView struct {
	head      string
	behind    int
	staged    []workspace.Change
	untracked []string
	// status is a whole `git status`, taken instead of the narrow questions
	// for a small registry: one process costs less than four there.
	status *workspace.Status
}

// looked is what look found: git's view and the rows whose fingerprint
// moved.
type looked struct {
	view  gitView
	moved []string
}

// smallRegistry is the row count under which one whole status is cheaper
// than git's narrow questions (measured: 500 files, 1 process ~ 4).
const smallRegistry = 2000

// look asks git for the view and, at the same time, scans the fingerprint
// of every row.
func (s *Service) look(ctx context.Context, g *workspace.Git) (gitView, []string, error) {
	snap, err := s.snapshot(ctx)
	if err != nil {
		return gitView{}, nil, err
	}
	under := cmp.Or(s.WholeStatusUnder, smallRegistry)
	var rows int
	if err := s.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		rows, err = countRows(ctx, tx, s.WS.Root)
		return err
	}); err != nil {
		return gitView{}, nil, err
	}
	var v gitView
	var moved []string
	errs := make([]error, 3)
	var wg sync.WaitGroup
	wg.Go(func() { moved, _, errs[0] = s.moved(ctx, snap) })
	if rows < under {
		v.status, errs[1] = g.StatusFiles(ctx)
		if v.status != nil {
			v.head, v.behind = v.status.Head, v.status.Behind
			for _, e := range v.status.Entries() {
				switch {
				case e.Kind == '?':
					v.untracked = append(v.untracked, e.Path)
				case len(e.XY) == 2 && e.XY[0] != '.':
					v.staged = append(v.staged, workspace.Change{Status: e.XY[0], Path: e.Path})
				case len(e.XY) == 2 && e.XY[1] == 'A':
					// Intent to add (git add -N): in the index, not yet staged,
					// and listed neither as untracked nor as staged above;
					// git diff-index, which the larger registry asks, lists
					// it as added.
					v.staged = append(v.staged, workspace.Change{Status: 'A', Path: e.Path})
				}
			}
		}
		wg.Wait()
		return v, moved, errors.Join(errs...)
	}
	wg.Go(func() { v.untracked, errs[1] = g.Untracked(ctx) })
	v.head, v.behind, v.staged, errs[2] = g.HeadView(ctx)
	wg.Wait()
	return v, moved, errors.Join(errs...)
}

// status builds what `git status` would list for the candidates: untracked
// files, staged changes, and work-tree changes — a candidate whose bytes (a
// symlink's target) do not hash to its index entry, or that is gone. A file
// git would call unchanged through an eol or clean filter is listed as
// changed: the tree is then not "clean", which costs a trust, never a wrong
// answer.
func (s *Service) status(ctx context.Context, g *workspace.Git, v gitView, cands []string) (*workspace.Status, error) {
	if v.status != nil {
		return v.status, nil
	}
	var entries []workspace.Entry
	untracked := map[string]bool{}
	for _, p := range v.untracked {
		untracked[p] = true
		entries = append(entries, workspace.Entry{Kind: '?', Path: p})
	}
	staged := map[string]byte{}
	for _, c := range v.staged {
		staged[c.Path] = c.Status
	}
	var tracked []string
	seen := map[string]bool{}
	for _, p := range append(slices.Clone(cands), slices.Collect(maps.Keys(staged))...) {
		if !untracked[p] && !seen[p] {
			seen[p] = true
			tracked = append(tracked, p)
		}
	}
	index, err := indexOf(ctx, g, v.head, tracked, staged)
	if err != nil {
		return nil, err
	}
	for _, p := range tracked {
		x, y := byte('.'), byte('.')
		if c, ok := staged[p]; ok {
			x = c
		}
		if e, ok := index[p]; ok {
			y = s.worktreeLetter(p, e)
		}
		if x != '.' || y != '.' {
			entries = append(entries, workspace.Entry{Kind: '1', XY: string([]byte{x, y}), Path: p})
		}
	}
	return workspace.NewStatus(v.head, "", v.behind, entries), nil
}

// indexOf returns the index entries of the tracked paths. A path the view
// lists as neither staged nor unmerged (git diff-index --cached against
// head, which lists a path added with intent to add as added) has in the
// index what head's tree has, so its entry is read from the tree (git
// ls-tree reads only the trees on its way); the index (git ls-files, which
// reads all of it: 50 ms at 100,000 files) is asked only for the rest, the
// staged paths and those head's tree does not hold as a file.
func indexOf(ctx context.Context, g *workspace.Git, head string, tracked []string, staged map[string]byte) (map[string]workspace.IndexEntry, error) {
	entries := map[string]workspace.IndexEntry{}
	var unstaged, rest []string
	for _, p := range tracked {
		if _, ok := staged[p]; ok {
			rest = append(rest, p)
		} else {
			unstaged = append(unstaged, p)
		}
	}
	if head != "" && len(unstaged) > 0 {
		// A tree git cannot read here (a clone without its trees) leaves
		// every path to the index.
		if got, ok, err := g.TreeEntries(ctx, head, unstaged); err == nil && ok {
			for _, p := range unstaged {
				if e, found := got[p]; found {
					entries[p] = e
				} else {
					rest = append(rest, p)
				}
			}
			unstaged = nil
		}
	}
	rest = append(rest, unstaged...)
	if len(rest) == 0 {
		return entries, nil
	}
	index, err := g.Index(ctx, rest)
	if err != nil {
		return nil, err
	}
	maps.Copy(entries, index)
	return entries, nil
}

// worktreeLetter compares a tracked file with its index entry: '.' the
// same, 'M' modified, 'D' gone.
func (s *Service) worktreeLetter(p string, e workspace.IndexEntry) byte {
	abs := s.WS.Abs(p)
	var data []byte
	switch e.Mode {
	case "160000":
		return '.' // a nested repository's commit: not a file of this tree
	case "120000":
		target, err := os.Readlink(abs)
		if err != nil {
			return missingOr(err)
		}
		data = []byte(target)
	default:
		fi, err := os.Lstat(abs)
		if err != nil {
			return missingOr(err)
		}
		if !fi.Mode().IsRegular() {
			return 'M'
		}
		if data, err = os.ReadFile(abs); err != nil {
			return 'M'
		}
	}
	if blobID(data, len(e.OID)) != e.OID {
		return 'M'
	}
	return '.'
}

func missingOr(err error) byte {
	if errors.Is(err, os.ErrNotExist) {
		return 'D'
	}
	return 'M'
}

// blobID is git's object id of a blob: SHA-1, or SHA-256 in a repository
// whose ids have 64 hex digits.
func blobID(data []byte, idLen int) string {
	var h hash.Hash = sha1.New()
	if idLen == 64 {
		h = sha256.New()
	}
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}
