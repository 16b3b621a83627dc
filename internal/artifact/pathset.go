package artifact

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/sha"
)

// maxPathSetFiles bounds the entries of a work tree walked outside git; a
// larger tree's path set is not compared (a variable for the tests).
var maxPathSetFiles = 200_000

// unlistedPrefix starts a path set that could not be listed. It never
// equals another (it carries the moment it was made), so an artifact that
// depends on it is never a hit on its account.
const unlistedPrefix = "unlisted:"

// listing is the work tree's files as a path set lists them, before the
// files of the index are looked for in the work tree.
type listing struct {
	root    string   // the workspace root
	tracked []string // the index's files, sorted: in the set where present
	files   []string // the other files of the set (untracked, or walked)
	// unlisted, when set, is the path set of a tree that could not be
	// listed (see unlistedPrefix).
	unlisted string
	// proven, when set, is the path set a proof vouched for (proof.go):
	// the tree was not listed.
	proven string
	// proof, when set, is the evidence to keep with the path set: gathered
	// with the listing (the index's files are then looked for anew, not
	// answered from a snapshot that may have looked before the listing's
	// time, which the proof's fingerprints are settled at), or, with
	// proven, the proof that vouched renewed with fingerprints that moved.
	proof *pathProof
}

// list lists the work tree's files: in git, the index's and the untracked
// ones not ignored (gitFiles); outside git the tree is walked, .git and the
// store's folder left out.
func (s *Service) list(ctx context.Context) (listing, error) {
	if s.WS.Git != nil {
		return s.gitFiles(ctx)
	}
	entries, err := freshness.ListTree(freshness.OSFS{}, s.WS, ".", maxPathSetFiles)
	if err != nil {
		// Unlisted, never equal to another path set: a folder the walk
		// cannot read makes the artifact stale, not the get fail.
		why := err.Error()
		if errors.Is(err, freshness.ErrTooManyEntries) {
			why = fmt.Sprintf("more than %d entries", maxPathSetFiles)
		}
		return listing{unlisted: fmt.Sprintf("%s%s at %d", unlistedPrefix, why, s.now().UnixNano())}, nil
	}
	var l listing
	for _, e := range entries {
		if !e.Kind.IsDir() {
			l.files = append(l.files, e.Rel)
		}
	}
	return l, nil
}

// digest is the path set: the sorted list of the work tree's files
// (tracked and untracked, not ignored) that found gives, which changes when
// a file is added, removed or moved; or the unlisted mark of a tree that
// could not be listed, or the path set a proof vouched for.
func (l listing) digest(ctx context.Context, snap *freshness.Snapshot) (string, error) {
	if l.unlisted != "" {
		return l.unlisted, nil
	}
	if l.proven != "" {
		return l.proven, nil
	}
	files, err := l.found(ctx, snap)
	if err != nil {
		return "", err
	}
	return pathsDigest(files), nil
}

// pathsDigest is the digest of sorted paths: of a path set's files, and of
// the index's files a path set proof keeps.
func pathsDigest(sorted []string) string { return sha.List(sorted).String() }

// found is the set's files, sorted: the index's files that snap finds in
// the work tree (a file deleted but not staged is gone) and the others.
func (l listing) found(ctx context.Context, snap *freshness.Snapshot) ([]string, error) {
	files := slices.Clone(l.files)
	if len(l.tracked) > 0 {
		present, err := l.present(ctx, snap)
		if err != nil {
			return nil, err
		}
		for i, f := range l.tracked {
			if present[i] {
				files = append(files, f)
			}
		}
	}
	slices.Sort(files)
	return files, nil
}

// present says which of the index's files are in the work tree; without
// a snapshot (or with a proof to keep) each is lstat'ed now.
func (l listing) present(ctx context.Context, snap *freshness.Snapshot) ([]bool, error) {
	if (l.proof != nil && !l.proof.tooLarge) || snap == nil {
		return freshness.PresentPaths(ctx, l.root, l.tracked)
	}
	return snap.Present(ctx, l.tracked)
}

// gitFiles lists the files of the index and the untracked files not
// ignored, with two git processes side by side: the walk for untracked
// files (git ls-files --others) is most of the time, and the index is read
// meanwhile.
func (s *Service) gitFiles(ctx context.Context) (listing, error) {
	untracked := sync.OnceValues(func() ([]string, error) { return s.WS.Git.Untracked(ctx) })
	go untracked() // starts now; a call waits for its result
	tracked, err := s.WS.Git.Tracked(ctx)
	others, uerr := untracked() // waited for, whatever happened: it outlives nothing
	if err := cmp.Or(err, uerr); err != nil {
		return listing{}, err
	}
	slices.Sort(tracked)
	return listing{root: s.WS.Root, tracked: tracked, files: others}, nil
}

// unlisted says why a path set was not compared, if it was not.
func unlisted(pathSet string) (string, bool) {
	why, ok := strings.CutPrefix(pathSet, unlistedPrefix)
	if i := strings.LastIndex(why, " at "); ok && i >= 0 {
		why = why[:i]
	}
	return why, ok
}
