package artifact

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/workspace"
)

// TestGitFilesAsListedAndFound holds the path set to its definition,
// after random adds, stages, commits, deletes, ignores and links: the
// files one `git ls-files --cached --others --exclude-standard` lists and
// lstat finds in the work tree. gitFiles gets there with two git processes
// side by side, and the snapshot that looks for the index's files answers
// for those a check fingerprinted first (a random few) and lstats the
// rest; an artifact put before it must keep its path set.
func TestGitFilesAsListedAndFound(t *testing.T) {
	names := []string{"a.go", "b.log", "d/c.go", "d/e/f.go", "g/h.go", "link"}
	rapid.Check(t, func(rt *rapid.T) {
		r := testgit.Init(rt, t.TempDir())
		r.Write(".gitignore", "*.log\n")
		r.Write("a.go", "a")
		r.Commit("init")
		ws, err := workspace.Discover(r.Dir)
		if err != nil {
			rt.Fatal(err)
		}
		svc := &Service{WS: ws}
		ctx := context.Background()
		for range rapid.IntRange(1, 8).Draw(rt, "steps") {
			name := rapid.SampledFrom(names).Draw(rt, "name")
			abs := r.Path(name)
			switch rapid.IntRange(0, 5).Draw(rt, "action") {
			case 0:
				os.MkdirAll(filepath.Dir(abs), 0o755)
				os.WriteFile(abs, []byte("x"), 0o644)
			case 1:
				r.Git("add", "-A")
			case 2:
				r.Git("add", "-A")
				r.Git("commit", "-q", "--allow-empty", "-m", "step")
			case 3: // unstaged: the index still lists it
				os.RemoveAll(abs)
			case 4: // a dangling link is a file in the tree
				os.RemoveAll(abs)
				os.MkdirAll(filepath.Dir(abs), 0o755)
				os.Symlink("nowhere", abs)
			case 5: // its folder, unstaged
				if dir := filepath.Dir(abs); dir != r.Dir {
					os.RemoveAll(dir)
				}
			}
			listed, err := ws.Git.LsFiles(ctx)
			if err != nil {
				rt.Fatal(err)
			}
			var want []string
			for _, f := range listed {
				if _, err := os.Lstat(ws.Abs(f)); err == nil {
					want = append(want, f)
				}
			}
			l, err := svc.gitFiles(ctx)
			if err != nil {
				rt.Fatal(err)
			}
			snap, err := freshness.NewSnapshot(ctx, ws, nil, freshness.Options{})
			if err != nil {
				rt.Fatal(err)
			}
			checked := rapid.SliceOfDistinct(rapid.SampledFrom(names), rapid.ID).Draw(rt, "checked")
			st := freshness.Stamp{}
			for _, name := range checked {
				st.Files = append(st.Files, freshness.FileStamp{Path: name})
			}
			if _, err := snap.CheckMany(ctx, []freshness.Stamp{st}); err != nil {
				rt.Fatal(err)
			}
			got, err := l.found(ctx, snap)
			if err != nil {
				rt.Fatal(err)
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				rt.Fatalf("path set of %q and %q is %q, want %q, listed and found", l.tracked, l.files, got, want)
			}
		}
	})
}
