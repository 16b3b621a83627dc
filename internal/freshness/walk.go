package freshness

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"time"
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
	// MaxDirs and MaxEntries bound the folders taken and the entries read.
	MaxDirs, MaxEntries int
}

// ErrUnsettled is a walk that met a fingerprint not settled at its time.
var ErrUnsettled = errors.New("a path changed within the racy window")

// WalkFolders fingerprints every folder under root (root first, as ".")
// and the files of w.Files in them, in the order it reads them. A folder
// is fingerprinted before it is read: an entry made while the walk goes on
// moves a fingerprint it took, so a caller that finds every fingerprint
// equal later knows no folder gained, lost or renamed an entry since the
// walk began. It gives up with ErrUnsettled at the first fingerprint not
// settled at w.At, with ErrTooManyEntries past w.MaxDirs or w.MaxEntries,
// where a path cannot be looked at, and once ctx is done.
func WalkFolders(ctx context.Context, root string, w FolderWalk) (rels, fps []string, err error) {
	entries, dirs := 0, 0
	take := func(rel string) error {
		fp, err := FingerprintFile(path.Join(root, rel))
		switch {
		case err != nil:
			return err
		case !fp.Settled(w.At, w.Window):
			return fmt.Errorf("%s: %w", rel, ErrUnsettled)
		}
		rels, fps = append(rels, rel), append(fps, fp.String())
		return nil
	}
	queue := []string{"."}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		if dirs++; dirs > w.MaxDirs {
			return nil, nil, fmt.Errorf("more than %d folders: %w", w.MaxDirs, ErrTooManyEntries)
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if err := take(dir); err != nil {
			return nil, nil, err
		}
		names, err := (OSFS{}).ReadDir(path.Join(root, dir))
		if err != nil {
			return nil, nil, err
		}
		if entries += len(names); entries > w.MaxEntries {
			return nil, nil, fmt.Errorf("more than %d entries: %w", w.MaxEntries, ErrTooManyEntries)
		}
		for _, e := range names {
			child := path.Join(dir, e.Name())
			switch {
			case e.Name() == ".git":
			case e.IsDir() && w.Skip != nil && w.Skip(child):
			case e.IsDir():
				queue = append(queue, child)
			case slices.Contains(w.Files, e.Name()):
				if err := take(child); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	return rels, fps, nil
}
