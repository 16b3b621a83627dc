package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/freshctx/freshctx/internal/testgit"
)

// TestGitDirsAreWhereGitFindsThem: read from the files, the git folders of
// a repository, a linked work tree, a submodule and a --separate-git-dir
// clone, in folders whose names hold spaces, are the ones git names; with
// GIT_DIR set, git is asked, and its answer, spaces and all, is read whole.
func TestGitDirsAreWhereGitFindsThem(t *testing.T) {
	base := filepath.Join(t.TempDir(), "my projects")
	main := testgit.Init(t, mkdir(t, filepath.Join(base, "main repo")))
	main.Write("a.txt", "a\n")
	main.Commit("init")
	linked := filepath.Join(base, "linked tree")
	main.Git("worktree", "add", "-q", "-b", "wt", linked)
	lib := testgit.Init(t, mkdir(t, filepath.Join(base, "lib repo")))
	lib.Write("l.txt", "l\n")
	lib.Commit("init")
	main.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.Dir, "sub module")
	separate := testgit.Plain(t, mkdir(t, filepath.Join(base, "separate tree")))
	separate.Git("init", "-q", "--separate-git-dir", filepath.Join(base, "separate git"))

	tops := map[string]string{"repository": main.Dir, "linked work tree": linked,
		"submodule": filepath.Join(main.Dir, "sub module"), "separate git folder": separate.Dir}
	for name, top := range tops {
		read, ok := readGitDirs(top)
		if !ok {
			t.Fatalf("%s: the git folders were not read", name)
		}
		asked := askGit(t, top)
		if !sameDir(read.dir, asked.dir) || !sameDir(read.common, asked.common) {
			t.Fatalf("%s: read %+v, git says %+v", name, *read, *asked)
		}
	}
	t.Setenv("GIT_DIR", askGit(t, linked).dir)
	t.Setenv("GIT_WORK_TREE", linked)
	if _, ok := readGitDirs(linked); ok {
		t.Fatal("read the git folders from files with GIT_DIR set")
	}
	got, err := newGit(linked, "").dirs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !sameDir(got.common, filepath.Join(main.Dir, ".git")) || !sameDir(got.dir, os.Getenv("GIT_DIR")) {
		t.Fatalf("with GIT_DIR set, the git folders are %+v", *got)
	}
}

// askGit is git's answer, as dirs reads it when the files are not read.
func askGit(t *testing.T, top string) *gitDirs {
	t.Helper()
	g := newGit(top, "")
	out, err := g.Run(context.Background(), top, "rev-parse", "--git-dir", "--git-common-dir")
	if err != nil {
		t.Fatal(err)
	}
	f := lines(out)
	if len(f) != 2 {
		t.Fatalf("rev-parse printed %q", out)
	}
	return &gitDirs{dir: g.abs(f[0]), common: g.abs(f[1])}
}

func sameDir(a, b string) bool {
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
