package fabric

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/later"
)

// maxPathSetFiles bounds the entries of a work tree walked outside git; a
// larger tree's path set is not compared (a variable for the tests).
var maxPathSetFiles = 200_000

// unlistedPrefix starts a path set that could not be listed. It never
// equals another (it carries the moment it was made), so an artifact that
// depends on it is never a hit on its account.
const unlistedPrefix = "unlisted:"

// pathSet digests the sorted list of the work tree's files (tracked and
// untracked, not ignored): it changes when a file is added, removed or moved.
// In git they are gitFiles; outside git the tree is walked, .git and the
// store's folder left out.
func (s *Service) pathSet(ctx context.Context) (string, error) {
	var files []string
	if s.WS.Git != nil {
		var err error
		if files, err = s.gitFiles(ctx); err != nil {
			return "", err
		}
	} else {
		entries, err := freshness.ListTree(freshness.OSFS{}, s.WS, ".", maxPathSetFiles)
		if err != nil {
			// Unlisted, never equal to another path set: a folder the walk
			// cannot read makes the artifact stale, not the get fail.
			why := err.Error()
			if errors.Is(err, freshness.ErrTooManyEntries) {
				why = fmt.Sprintf("more than %d entries", maxPathSetFiles)
			}
			return fmt.Sprintf("%s%s at %d", unlistedPrefix, why, s.now().UnixNano()), nil
		}
		for _, e := range entries {
			if !e.Kind.IsDir() {
				files = append(files, e.Rel)
			}
		}
	}
	slices.Sort(files)
	h := sha256.New()
	for _, f := range files {
		h.Write([]byte(f))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// gitFiles lists the files of the index present in the work tree (a file
// deleted but not staged is gone) and the untracked files not ignored. The
// walk for untracked files (git ls-files --others) runs beside the listing
// of the index and the lstat of its files: in a repository of 13,000 files
// the walk and the lstat take about as long as each other.
func (s *Service) gitFiles(ctx context.Context) ([]string, error) {
	untracked := later.Start(func() ([]string, error) { return s.WS.Git.Untracked(ctx) })
	tracked, err := s.WS.Git.Tracked(ctx)
	var files []string
	if err == nil {
		slices.Sort(tracked)
		var present []bool
		present, err = freshness.PresentPaths(ctx, s.WS.Root, tracked)
		for i, f := range tracked {
			if err == nil && present[i] {
				files = append(files, f)
			}
		}
	}
	others, uerr := untracked() // waited for, whatever happened: it outlives nothing
	if err := cmp.Or(err, uerr); err != nil {
		return nil, err
	}
	return append(files, others...), nil
}

// unlisted says why a path set was not compared, if it was not.
func unlisted(pathSet string) (string, bool) {
	why, ok := strings.CutPrefix(pathSet, unlistedPrefix)
	if i := strings.LastIndex(why, " at "); ok && i >= 0 {
		why = why[:i]
	}
	return why, ok
}
