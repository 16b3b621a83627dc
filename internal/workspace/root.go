package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Workspace is a root directory and, when the root lies in a git work tree,
// the git facade for it.
type Workspace struct {
	// Root is the absolute, cleaned, symlink-resolved root directory.
	Root string
	// Git is nil when the root is not inside a git work tree.
	Git *Git
}

// Discover returns the workspace containing dir: the top level of the git
// work tree dir is in, else dir itself. It runs no process: the work tree is
// found by looking for a .git entry in dir and its parents.
func Discover(dir string) (*Workspace, error) {
	return open(dir, true)
}

// Open returns the workspace rooted exactly at dir (the --root flag). When dir
// lies inside a git work tree, git is used with dir as a sub-tree of it.
func Open(dir string) (*Workspace, error) {
	return open(dir, false)
}

// open finds the git work tree around dir; atTop makes its top level the
// root, else dir stays the root and git sees it as a sub-tree.
func open(dir string, atTop bool) (*Workspace, error) {
	abs, err := resolveDir(dir)
	if err != nil {
		return nil, err
	}
	top, ok := findGitTop(abs)
	switch {
	case !ok:
		return &Workspace{Root: abs}, nil
	case atTop:
		return &Workspace{Root: top, Git: newGit(top, "")}, nil
	}
	prefix, err := filepath.Rel(top, abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	if prefix == "." {
		prefix = ""
	}
	return &Workspace{Root: abs, Git: newGit(top, filepath.ToSlash(prefix))}, nil
}

func resolveDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workspace root %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("workspace root %s does not exist", dir)
		}
		return "", fmt.Errorf("workspace root %s: %w", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("workspace root %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("workspace root %s is not a directory", dir)
	}
	return real, nil
}

// findGitTop walks up from dir to the first directory holding a .git entry
// (a directory, or a file as in linked worktrees and submodules).
func findGitTop(dir string) (string, bool) {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// Exists reports whether the root directory is still there.
func (w *Workspace) Exists() bool {
	fi, err := os.Stat(w.Root)
	return err == nil && fi.IsDir()
}

// Abs returns the absolute OS path of a root-relative path.
func (w *Workspace) Abs(rel string) string {
	return filepath.Join(w.Root, filepath.FromSlash(rel))
}
