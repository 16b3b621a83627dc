package fabric

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/freshctx/freshctx/internal/store"
)

// maxPathSetFiles bounds the walk of a work tree outside git; a larger
// tree's path set is not compared (a variable for the tests).
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
		for _, f := range listed {
			if _, err := os.Lstat(s.WS.Abs(f)); err == nil {
				files = append(files, f)
			}
		}
	} else {
		var err error
		if files, err = walkFiles(ctx, s.WS.Root); errors.Is(err, errTooManyFiles) {
			return fmt.Sprintf("%smore than %d files at %d", unlistedPrefix, maxPathSetFiles, s.now().UnixNano()), nil
		} else if err != nil {
			return "", fmt.Errorf("list the work tree: %w", err)
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

// walkFiles lists every file and symlink under root, root-relative and
// slash-separated, without following links.
func walkFiles(ctx context.Context, root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (d.Name() == ".git" || d.Name() == store.DirName) {
				return filepath.SkipDir
			}
			return ctx.Err()
		}
		if len(files) == maxPathSetFiles {
			return errTooManyFiles
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	return files, err
}

var errTooManyFiles = errors.New("too many files")

// unlisted says why a path set was not compared, if it was not.
func unlisted(pathSet string) (string, bool) {
	why, ok := strings.CutPrefix(pathSet, unlistedPrefix)
	if i := strings.LastIndex(why, " at "); ok && i >= 0 {
		why = why[:i]
	}
	return why, ok
}
