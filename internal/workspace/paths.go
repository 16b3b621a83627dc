package workspace

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrOutsideRoot is wrapped by every error refusing a path that escapes the root.
var ErrOutsideRoot = errors.New("path is outside the workspace root")

// PathError says which path was refused and why.
type PathError struct {
	Path string
	Root string
	Err  error
}

func (e *PathError) Error() string {
	return fmt.Sprintf("%s: %v (root %s)", e.Path, e.Err, e.Root)
}

func (e *PathError) Unwrap() error { return e.Err }

// Rel turns a path given by a user, relative to cwd or absolute, into a
// cleaned, slash-separated path relative to the root. The root itself is ".".
// A path that escapes the root, lexically or through a symlinked prefix of the
// root, is refused with an error wrapping ErrOutsideRoot.
func (w *Workspace) Rel(p, cwd string) (string, error) {
	if p == "" {
		return "", &PathError{Path: p, Root: w.Root, Err: errors.New("empty path")}
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, p)
	}
	abs = filepath.Clean(abs)
	if rel, ok := within(w.Root, abs); ok {
		return rel, nil
	}
	// The path may name the root through a symlink (e.g. /tmp vs /private/tmp):
	// resolve the longest existing prefix and try again.
	if real, err := resolvePrefix(abs); err == nil {
		if rel, ok := within(w.Root, real); ok {
			return rel, nil
		}
	}
	return "", &PathError{Path: p, Root: w.Root, Err: ErrOutsideRoot}
}

// Clean normalises a path that is already meant to be root-relative (as
// stored in the database or read from git), refusing escapes.
func Clean(rel string) (string, error) {
	c := path.Clean(filepath.ToSlash(rel))
	if c == ".." || strings.HasPrefix(c, "../") || path.IsAbs(c) {
		return "", &PathError{Path: rel, Err: ErrOutsideRoot}
	}
	return c, nil
}

func within(root, abs string) (string, bool) {
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}

// resolvePrefix evaluates symlinks in the longest existing prefix of abs and
// appends the rest unchanged.
func resolvePrefix(abs string) (string, error) {
	rest := ""
	for d := abs; ; {
		real, err := filepath.EvalSymlinks(d)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", err
		}
		rest = filepath.Join(filepath.Base(d), rest)
		d = parent
	}
}

// Resolve returns the absolute path a root-relative path reaches with every
// symlink resolved, refusing (ErrOutsideRoot) one that leaves the root.
func (w *Workspace) Resolve(rel string) (string, error) {
	real, err := filepath.EvalSymlinks(w.Abs(rel))
	if err != nil {
		return "", err
	}
	root, err := filepath.EvalSymlinks(w.Root)
	if err != nil {
		return "", err
	}
	if _, ok := within(root, real); !ok {
		return "", &PathError{Path: rel, Root: w.Root, Err: fmt.Errorf("%w (it links to %s)", ErrOutsideRoot, real)}
	}
	return real, nil
}
