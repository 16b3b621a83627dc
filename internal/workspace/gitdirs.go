package workspace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// readGitDirs finds a work tree's git folders from the files git keeps
// them in (gitrepository-layout), without starting git: top/.git is the
// folder, or a file naming it ("gitdir: PATH", in linked work trees,
// submodules and --separate-git-dir clones); a folder holding a
// "commondir" file shares the repository of the folder that file names.
//
// It answers only when the layout is the plain one and git would find the
// same: with GIT_DIR, GIT_COMMON_DIR or GIT_WORK_TREE in the environment,
// or a folder without HEAD, or a repository without objects, it says
// nothing and git is asked.
func readGitDirs(top string) (*gitDirs, bool) {
	for _, v := range []string{"GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE"} {
		if _, set := os.LookupEnv(v); set {
			return nil, false
		}
	}
	dot := filepath.Join(top, ".git")
	fi, err := os.Lstat(dot)
	if err != nil {
		return nil, false
	}
	dir := dot
	if fi.Mode().IsRegular() {
		if dir = pointedTo(dot, "gitdir: "); dir == "" {
			return nil, false
		}
	} else if !fi.IsDir() {
		return nil, false
	}
	common := dir
	if _, err := os.Lstat(filepath.Join(dir, "commondir")); err == nil {
		if common = pointedTo(filepath.Join(dir, "commondir"), ""); common == "" {
			return nil, false
		}
	}
	if !isFile(filepath.Join(dir, "HEAD")) || !isDir(filepath.Join(common, "objects")) {
		return nil, false
	}
	return &gitDirs{dir: dir, common: common}, true
}

// pointedTo reads a one-line file naming a folder after prefix, absolute
// or relative to the file's folder; "" when it does not.
func pointedTo(file, prefix string) string {
	b, err := os.ReadFile(file)
	if err != nil || !bytes.HasPrefix(b, []byte(prefix)) {
		return ""
	}
	p := string(bytes.TrimRight(b[len(prefix):], "\r\n"))
	if p == "" || strings.ContainsAny(p, "\n\x00") {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(file), p)
	}
	return filepath.Clean(p)
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
