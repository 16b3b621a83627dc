package freshness

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"time"

	"github.com/freshctx/freshctx/internal/sha"
)

// FolderWalk says how WalkFolders walks a tree.
type FolderWalk struct {
	// At is the file clock (unix ns) the walk's fingerprints must be
	// settled at (Fingerprint.Settled with Window).
	At     int64
	Window time.Duration
	// Files are the names of the files taken in every folder besides the
	// folders themselves (".gitignore").
	Files []string
	// Skip says whether to leave out a folder (root-relative), and all
	// below it; git's folders are always left out.
	Skip func(rel string) bool
	// NestedGit says whether to take the .git entry of a folder below the
	// root that has one, and the HEAD file of such a .git folder: whether
	// git takes an untracked folder for a nested repository (and lists it
	// as one entry) or lists its files depends on what its .git holds,
	// which the folder's own fingerprint does not see. nil takes none.
	NestedGit func(folder string) bool
	// MaxDirs and MaxEntries bound the folders taken and the entries read.
	MaxDirs, MaxEntries int
}

// ErrUnsettled is a walk that met a fingerprint not settled at its time.
var ErrUnsettled = errors.New("a path changed within the racy window")

// Walked is one path a walk took: its fingerprint and, for a folder, the
// digest of its entries (FolderEntries) as they were under that
// fingerprint.
type Walked struct {
	Rel, FP string
	// Entries is "" for a file.
	Entries string
}

// WalkFolders fingerprints every folder under root (root first, as ".")
// and the files of w.Files in them, in the order it reads them. A folder
// is fingerprinted before it is read and again after: an entry made while
// the walk goes on moves a fingerprint it took, so a caller that finds
// every fingerprint equal later knows no folder gained, lost or renamed an
// entry since the walk began, and the entries it read are the ones the
// fingerprint stands for. It gives up with ErrUnsettled at the first
// fingerprint not settled at w.At or a folder that changed while it was
// read, with ErrTooManyEntries past w.MaxDirs or w.MaxEntries, where a
// path cannot be looked at, and once ctx is done.
func WalkFolders(ctx context.Context, root string, w FolderWalk) ([]Walked, error) {
	var out []Walked
	entries, dirs := 0, 0
	take := func(rel string) (Fingerprint, error) {
		fp, err := FingerprintFile(path.Join(root, rel))
		switch {
		case err != nil:
			return fp, err
		case !fp.Settled(w.At, w.Window):
			return fp, fmt.Errorf("%s: %w", rel, ErrUnsettled)
		}
		out = append(out, Walked{Rel: rel, FP: fp.String()})
		return fp, nil
	}
	queue := []string{"."}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		if dirs++; dirs > w.MaxDirs {
			return nil, fmt.Errorf("more than %d folders: %w", w.MaxDirs, ErrTooManyEntries)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fp, err := take(dir)
		if err != nil {
			return nil, err
		}
		names, digested, err := readFolder(path.Join(root, dir), fp)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		out[len(out)-1].Entries = digested // the folder take just added
		if entries += len(names); entries > w.MaxEntries {
			return nil, fmt.Errorf("more than %d entries: %w", w.MaxEntries, ErrTooManyEntries)
		}
		for _, e := range names {
			child := path.Join(dir, e.Name())
			switch {
			case e.Name() == ".git":
				if w.NestedGit != nil && dir != "." && w.NestedGit(dir) {
					if err := takeGit(child, e.IsDir(), take); err != nil {
						return nil, err
					}
				}
			case e.IsDir() && w.Skip != nil && w.Skip(child):
			case e.IsDir():
				queue = append(queue, child)
			case slices.Contains(w.Files, e.Name()):
				if _, err := take(child); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// takeGit takes a nested .git entry and, for a folder, its HEAD, if it is
// there (its coming back moves the folder's fingerprint).
func takeGit(rel string, isDir bool, take func(string) (Fingerprint, error)) error {
	if _, err := take(rel); err != nil {
		return err
	}
	if !isDir {
		return nil
	}
	if _, err := take(path.Join(rel, "HEAD")); err != nil && !Absent(err) {
		return err
	}
	return nil
}

// FolderEntries reads a folder whose fingerprint was fp and digests its
// entries: each name with its type (folder, link, file or other), in name
// order. A folder whose fingerprint moved while its entries stayed the same
// (a file saved by writing another and renaming it over the first, a
// temporary file come and gone) has the same digest. It fails with
// ErrUnsettled when the folder's fingerprint after the read is not fp:
// the entries read may not be the ones fp stands for.
func FolderEntries(abs string, fp Fingerprint) (string, error) {
	_, digested, err := readFolder(abs, fp)
	return digested, err
}

func readFolder(abs string, fp Fingerprint) ([]fs.DirEntry, string, error) {
	names, err := (OSFS{}).ReadDir(abs)
	if err != nil {
		return nil, "", err
	}
	after, err := FingerprintFile(abs)
	if err != nil {
		return nil, "", err
	}
	if after.String() != fp.String() {
		return nil, "", fmt.Errorf("changed while it was read: %w", ErrUnsettled)
	}
	items := make([]string, len(names))
	for i, e := range names {
		items[i] = e.Name() + "/" + e.Type().String() // no name holds a '/'
	}
	return names, sha.List(items).String(), nil
}
