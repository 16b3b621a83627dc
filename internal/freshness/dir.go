package freshness

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/freshctx/freshctx/internal/sha"
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
// target string and what it reaches (linkReach), a directory or anything
// else by its kind alone. A directory is fresh only when this is
// unchanged: the same files with the same bytes, whichever path reaches
// them. latest is the newest mtime or ctime among the entries, the files
// links reach and the directory itself (unix ns), for NoteChangedDuringRun.
func (s *Snapshot) dirDigest(ctx context.Context, rel string, self FileInfo) (d sha.Sum, latest int64, err error) {
	latest = max(self.ModTime, self.Ctime)
	entries, err := ListTree(s.opt.FS, s.ws, rel, MaxDirEntries)
	if err != nil {
		return sha.Sum{}, 0, err
	}
	real, err := filepath.EvalSymlinks(s.ws.Abs(rel))
	if err != nil {
		return sha.Sum{}, 0, err
	}
	var files []string
	reach := map[string]linkReach{}
	for _, e := range entries {
		switch {
		case e.Kind.IsRegular():
			files = append(files, e.Rel)
		case e.Kind&fs.ModeSymlink != 0:
			r, err := s.linkReach(e.Rel, rel, real)
			if err != nil {
				return sha.Sum{}, 0, err
			}
			if r == reachesFile {
				files = append(files, e.Rel) // hashed through the link
			}
			reach[e.Rel] = r
		}
	}
	got, err := s.DigestMany(ctx, files, DigestOptions{})
	if err != nil {
		return sha.Sum{}, 0, err
	}
	byPath := make(map[string]FileDigest, len(got))
	for _, g := range got {
		byPath[g.Path] = g
	}
	h := sha256.New()
	for _, e := range entries {
		content, changed, err := s.entryContent(e, byPath[e.Rel], reach[e.Rel])
		if err != nil {
			return sha.Sum{}, 0, fmt.Errorf("%s: %w", e.Rel, err)
		}
		latest = max(latest, changed)
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", under(rel, e.Rel), e.Kind.Type(), content)
	}
	copy(d[:], h.Sum(nil))
	return d, latest, nil
}

// linkReach is what a symlink under a directory reaches, for its digest.
type linkReach string

const (
	// reachesCovered: a path under the directory, whose own entry the
	// digest holds; the target string is enough.
	reachesCovered linkReach = "covered"
	// reachesNothing: the link resolves to nothing (dangling, a loop).
	reachesNothing linkReach = "nothing"
	// reachesFile: a regular file elsewhere in the root, whose digest the
	// directory's holds.
	reachesFile linkReach = "file"
	// reachesOther: a named pipe, a device or a socket elsewhere in the
	// root: its kind is all there is.
	reachesOther linkReach = "other"
)

// ErrLinkedFolder is a directory holding a symlink to a folder outside it:
// what is under that folder is not compared, so neither is the directory.
var ErrLinkedFolder = errors.New("links to a folder outside")

// linkReach resolves the symlink rel under the directory dir (real: dir
// with every link resolved). A link that leaves the root makes the
// directory unknown (ErrOutsideRoot), as one to a folder outside dir does
// (ErrLinkedFolder).
func (s *Snapshot) linkReach(rel, dir, real string) (linkReach, error) {
	abs := s.ws.Abs(rel)
	fi, err := s.opt.FS.Stat(abs)
	switch {
	case Absent(err) || errors.Is(err, syscall.ELOOP):
		return reachesNothing, nil // no file there: nothing to read
	case err != nil:
		return "", fmt.Errorf("%s: %w", rel, err) // something there, unread
	}
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("%s: %w", rel, err)
	}
	if !s.within(target) {
		return "", fmt.Errorf("%s: %w", rel, ErrOutsideRoot)
	}
	if coveredBy(real, target) {
		return reachesCovered, nil
	}
	switch {
	case fi.Mode.IsRegular():
		return reachesFile, nil
	case fi.IsDir():
		return "", fmt.Errorf("%s %w %s; the files there are not compared", rel, ErrLinkedFolder, dir)
	}
	return reachesOther, nil
}

// coveredBy reports whether the resolved path target lies under the
// resolved directory real, outside the folders a digest leaves out.
func coveredBy(real, target string) bool {
	r, err := filepath.Rel(real, target)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") || filepath.IsAbs(r) {
		return false
	}
	for _, part := range strings.Split(filepath.ToSlash(r), "/") {
		if skipInDir[part] {
			return false
		}
	}
	return true
}

// entryContent is what an entry contributes to its directory's digest, and
// its newest mtime or ctime: a regular file its digest (g, from
// DigestMany), a symlink its target string and what it reaches (a file
// elsewhere by its digest, g), anything else nothing.
func (s *Snapshot) entryContent(e TreeEntry, g FileDigest, r linkReach) (content string, changed int64, err error) {
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
		if err != nil {
			return "", 0, err
		}
		changed, content = max(l.ModTime, l.Ctime), target+"\x00"+string(r)
		if r == reachesFile {
			if g.Err != nil {
				return "", 0, g.Err
			}
			changed = max(changed, g.FP.File.ModTime, g.FP.File.Ctime)
			content += "\x00" + g.Digest.String()
		}
		return content, changed, nil
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
