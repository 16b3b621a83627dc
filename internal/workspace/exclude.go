package workspace

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ExcludeFromGit adds a root-relative directory to the repository's
// .git/info/exclude (once), so freshctx's own files never show as untracked.
// It does nothing outside git.
func (w *Workspace) ExcludeFromGit(relDir string) error {
	if w.Git == nil {
		return nil
	}
	return w.exclude("/" + w.Git.toGit(relDir) + "/")
}

// ExcludeStoreFromGit adds a store file the user placed inside the work
// tree to .git/info/exclude, with its companions (-wal, -shm, -blobs/):
// as the default store's folder is, so the store never shows as untracked
// and no listing of the tree names it.
func (w *Workspace) ExcludeStoreFromGit(relFile string) error {
	if w.Git == nil {
		return nil
	}
	base := "/" + w.Git.toGit(relFile)
	if err := w.exclude(base); err != nil {
		return err
	}
	return w.exclude(base + "-*")
}

// exclude adds pattern to .git/info/exclude unless it is there.
func (w *Workspace) exclude(pattern string) error {
	gitDir, err := commonGitDir(w.Git.Top)
	if err != nil {
		return err
	}
	path := filepath.Join(gitDir, "info", "exclude")
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(old))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == pattern {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("exclude %s: %w", pattern, err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("exclude %s: %w", pattern, err)
	}
	defer f.Close()
	prefix := ""
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		prefix = "\n"
	}
	if _, err := fmt.Fprintf(f, "%s%s\n", prefix, pattern); err != nil {
		return fmt.Errorf("exclude %s: %w", pattern, err)
	}
	return nil
}

// commonGitDir finds the directory holding info/exclude: .git itself, or for
// linked worktrees and submodules (.git is a file) the common directory.
func commonGitDir(top string) (string, error) {
	dotGit := filepath.Join(top, ".git")
	fi, err := os.Stat(dotGit)
	if err != nil {
		return "", fmt.Errorf("find git dir: %w", err)
	}
	if fi.IsDir() {
		return dotGit, nil
	}
	b, err := os.ReadFile(dotGit)
	if err != nil {
		return "", fmt.Errorf("find git dir: %w", err)
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok {
		return "", fmt.Errorf("find git dir: %s is not a gitdir link", dotGit)
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(top, dir)
	}
	if c, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(dir, common)
		}
		return filepath.Clean(common), nil
	}
	return dir, nil
}
