package artifact

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
)

// Exported is an artifact as it leaves this machine: every slice on one
// ref with its content and the SHA-256 of each input. Nothing in it is
// true only here (no fingerprint, no mtime).
type Exported struct {
	Repo, Ref, Type, Key string
	Commit, Tree         string
	Slices               []ExportedSlice
}

// ExportedSlice is one slice of an exported artifact.
type ExportedSlice struct {
	Name    string
	PathSet string // "" unless the type depends on the path set
	Digests
	TTL       time.Duration
	CreatedAt time.Time
	Inputs    []Input
	Content   string
}

// Input is a file an artifact was derived from and the SHA-256 (hex) of
// the bytes it was derived from.
type Input struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// ErrNotShareable: the artifact names an input with no hash (unreadable,
// too large, changed while it was read, missing) or a path set that could
// not be listed, so no other work tree could ever match it.
var ErrNotShareable = errors.New("the artifact has an input no other work tree can match")

// ErrGone: the artifact was replaced or deleted since it was queued.
var ErrGone = errors.New("the artifact is no longer stored")

// Export reads every slice of (repo, ref, type, key) as stored now.
func (s *Service) Export(ctx context.Context, repo, ref, typ, key string) (*Exported, error) {
	var found []slice
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		found, err = querySlices(ctx, tx, `repo = ? AND ref = ? AND type = ? AND key = ?`, repo, ref, typ, key)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, ErrGone
	}
	out := &Exported{Repo: repo, Ref: ref, Type: typ, Key: key, Commit: found[0].commit, Tree: found[0].tree}
	for _, sl := range found {
		if sl.invalidated {
			return nil, ErrGone // forced stale here: not something to give a team
		}
		if _, ok := unlisted(sl.paths); ok {
			return nil, ErrNotShareable
		}
		x := ExportedSlice{Name: sl.name, PathSet: sl.paths, Digests: sl.digests, TTL: sl.ttl, CreatedAt: sl.created}
		for _, d := range sl.deps {
			if !d.Existed || d.IsDir || d.Digest.IsZero() {
				return nil, ErrNotShareable
			}
			x.Inputs = append(x.Inputs, Input{Path: d.Path, SHA256: d.Digest.String()})
		}
		if x.Content, err = s.load(sl.inline, sl.blob); err != nil {
			return nil, err
		}
		out.Slices = append(out.Slices, x)
	}
	return out, nil
}

// Want is what an imported artifact was derived from: a file's SHA-256
// (hex) by path, and for a type that depends on it the tree and the path
// set.
type Want struct {
	Files   map[string]string
	Tree    string
	PathSet string
	// At is where the work tree was when the caller read it (Here), to
	// file the artifact under without reading HEAD again; nil: read now.
	At *Place
}

// ErrOtherBytes: the work tree does not hold what an imported artifact was
// derived from.
var ErrOtherBytes = errors.New("this work tree does not hold the bytes the artifact was derived from")

// Import stores an artifact derived elsewhere as this work tree's — every
// slice of it, replacing whatever the key held on this ref — only if this
// work tree holds exactly what it was derived from now: its own stamps,
// taken here, find every input's SHA-256 (and, for a type that depends on
// the path set, the tree and the path set) equal to want. Else it stores
// nothing and returns ErrOtherBytes. A single unnamed slice is the whole
// artifact.
// Paths (deps and a key that names a file) are root-relative.
func (s *Service) Import(ctx context.Context, req PutRequest, in []SliceInput, want Want) (*PutSlicesResult, error) {
	rooted := *s
	rooted.Cwd = s.WS.Root
	return rooted.putSlices(ctx, req, in, &want)
}

// Key is the key a get or put of typ files key under: for a type keyed by
// a file, the file's root-relative path (as the caller typed it when it
// does not resolve).
func (s *Service) Key(typ, key string) string {
	if !SpecOf(typ).KeyIsFile {
		return key
	}
	if rel, err := s.resolve([]string{key}); err == nil {
		return rel[0]
	}
	return key
}

// checkWant compares what a put found with what an import wants.
func checkWant(spec Spec, want *Want, at place, stamps []freshness.Stamp, pathSet string) error {
	if want == nil {
		return nil
	}
	for _, st := range stamps {
		for _, f := range st.Files {
			w, ok := want.Files[f.Path]
			if !ok || !f.Existed || f.Digest.IsZero() || f.Digest.String() != w {
				return fmt.Errorf("%s: %w", f.Path, ErrOtherBytes)
			}
		}
	}
	if spec.PathSet && (want.Tree == "" || want.Tree != at.tree) {
		return fmt.Errorf("the tree: %w", ErrOtherBytes)
	}
	if spec.PathSet && (want.PathSet == "" || want.PathSet != pathSet) {
		return fmt.Errorf("the set of files: %w", ErrOtherBytes)
	}
	return nil
}

// Hashes are the SHA-256 (hex) of the files at paths as this work tree
// holds them now, by path; a file missing or unreadable is left out. The
// fingerprints freshctx keeps stand for bytes it hashed before.
func (s *Service) Hashes(ctx context.Context, paths []string) (map[string]string, error) {
	snap, err := s.snapshot(ctx, paths)
	if err != nil {
		return nil, err
	}
	st, err := snap.Stamp(ctx, paths, time.Time{})
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(paths))
	for _, f := range st.Files {
		if f.Existed && !f.IsDir && !f.Digest.IsZero() {
			out[f.Path] = f.Digest.String()
		}
	}
	return out, snap.Flush(ctx)
}

// Place is where the work tree is: the repository's id, the ref an
// artifact is filed under, HEAD's commit and tree.
type Place struct{ Repo, Ref, Commit, Tree string }

// Here is where the work tree is now (one git process).
func (s *Service) Here(ctx context.Context) (Place, error) {
	p, err := s.here(ctx)
	return Place{Repo: p.repo, Ref: p.ref, Commit: p.commit, Tree: p.tree}, err
}

// RepoID is the repository's id (its first commit), as artifacts are filed
// under it; cached in the store, so it costs no git process after the
// first.
func (s *Service) RepoID(ctx context.Context) (string, error) { return s.repoID(ctx) }
