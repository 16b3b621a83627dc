package fabric

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/freshctx/freshctx/internal/freshness"
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
// git lists candidates from its index; only those present in the work tree
// now count, so a file deleted but not staged is gone from the set. Outside
// git the tree is walked, .git and the store's folder left out.
func (s *Service) pathSet(ctx context.Context) (string, error) {
	var files []string
	if s.WS.Git != nil {
		listed, err := s.WS.Git.LsFiles(ctx)
		if err != nil {
			return "", err
		}
		for i, f := range listed {
			if i%1024 == 0 && ctx.Err() != nil {
				return "", ctx.Err() // the get no longer needs it
			}
			if _, err := os.Lstat(s.WS.Abs(f)); err == nil {
				files = append(files, f)
			}
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

// unlisted says why a path set was not compared, if it was not.
func unlisted(pathSet string) (string, bool) {
	why, ok := strings.CutPrefix(pathSet, unlistedPrefix)
	if i := strings.LastIndex(why, " at "); ok && i >= 0 {
		why = why[:i]
	}
	return why, ok
}
