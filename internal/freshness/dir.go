package freshness

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/freshctx/freshctx/internal/digest"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/workspace"
)

// MaxDirEntries bounds the entries under a directory that a stamp of it
// compares; a larger directory is not stamped and stays unknown.
const MaxDirEntries = 5000

// skipInDir are the names a directory's digest leaves out: git's own
// folder and freshctx's store, which change on every git or freshctx
// command.
var skipInDir = map[string]bool{".git": true, store.DirName: true}

// ErrTooManyEntries is a folder with more entries than a listing allows.
var ErrTooManyEntries = errors.New("too many entries")

// dirDigest is a directory's content: the SHA-256 of every entry under it,
// recursively and in order, by path relative to it, kind, and content — a
// regular file by its digest (through the stat cache), a symlink by its
// target string (never followed), a directory or anything else by its kind
// alone. A directory is fresh only when this is unchanged: the same files
// with the same bytes. latest is the newest mtime or ctime among the
// entries and the directory itself (unix ns), for NoteChangedDuringRun.
func (s *Snapshot) dirDigest(ctx context.Context, rel string, self FileInfo) (d digest.Digest, latest int64, err error) {
	latest = max(self.ModTime, self.Ctime)
	entries, err := ListTree(s.opt.FS, s.ws, rel, MaxDirEntries)
	if err != nil {
		return digest.Digest{}, 0, err
	}
	var files []string
	for _, e := range entries {
		if e.Kind.IsRegular() {
			files = append(files, e.Rel)
		}
	}
	got, err := s.DigestMany(ctx, files, DigestOptions{})
	if err != nil {
		return digest.Digest{}, 0, err
	}
	byPath := make(map[string]FileDigest, len(got))
	for _, g := range got {
		byPath[g.Path] = g
	}
	h := sha256.New()
	for _, e := range entries {
		content, changed, err := s.entryContent(e, byPath[e.Rel])
		if err != nil {
			return digest.Digest{}, 0, fmt.Errorf("%s: %w", e.Rel, err)
		}
		latest = max(latest, changed)
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", under(rel, e.Rel), e.Kind.Type(), content)
	}
	copy(d[:], h.Sum(nil))
	return d, latest, nil
}

// entryContent is what an entry contributes to its directory's digest, and
// its newest mtime or ctime: a regular file its digest (g, from
// DigestMany), a symlink its target string, anything else nothing.
func (s *Snapshot) entryContent(e TreeEntry, g FileDigest) (content string, changed int64, err error) {
	abs := s.ws.Abs(e.Rel)
	switch {
	case e.Kind.IsRegular():
		if g.Err != nil {
			return "", 0, g.Err
		}
		return g.Digest.String(), max(g.FP.File.ModTime, g.FP.File.Ctime), nil
	case e.Kind&fs.ModeSymlink != 0:
		l, err := s.opt.FS.Lstat(abs)
		if err != nil {
			return "", 0, err
		}
		target, err := s.opt.FS.Readlink(abs)
		return target, max(l.ModTime, l.Ctime), err
	}
	if fi, err := s.opt.FS.Lstat(abs); err == nil {
		changed = max(fi.ModTime, fi.Ctime)
	}
	return "", changed, nil
}

// under is child's path relative to its directory dir.
func under(dir, child string) string {
	if dir == "." {
		return child
	}
	return child[len(dir)+1:]
}

// TreeEntry is one entry under a folder, as ListTree finds it.
type TreeEntry struct {
	Rel  string      // root-relative
	Kind fs.FileMode // its type bits, as lstat gives them
}

// ListTree lists every entry under the root-relative folder rel, depth
// first in name order, without following symlinks; .git and the store's
// folder are left out, at any depth. Past limit entries it stops with
// ErrTooManyEntries.
func ListTree(fsys FS, ws *workspace.Workspace, rel string, limit int) ([]TreeEntry, error) {
	var out []TreeEntry
	var walk func(dir string) error
	walk = func(dir string) error {
		names, err := fsys.ReadDir(ws.Abs(dir))
		if err != nil {
			return err
		}
		for _, n := range names {
			if skipInDir[n.Name()] {
				continue
			}
			if len(out) == limit {
				return ErrTooManyEntries
			}
			child := path.Join(dir, n.Name())
			out = append(out, TreeEntry{Rel: child, Kind: n.Type()})
			if n.IsDir() {
				if err := walk(child); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return out, walk(rel)
}
