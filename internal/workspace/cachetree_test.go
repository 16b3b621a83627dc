package workspace

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/testgit"
)

// staged is what list (StagedChanges, or stagedByGit) lists, as "letter
// path" in order.
func staged(t rapid.TB, list func(context.Context) ([]Change, error)) []string {
	t.Helper()
	changes, err := list(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, c := range changes {
		out = append(out, string(c.Status)+" "+c.Path)
	}
	slices.Sort(out)
	return out
}

// TestStagedChangesFromTheCachedTree: where the index's cached tree of the
// workspace's folder is valid and HEAD's, StagedChanges answers "none"
// without git; everywhere it answers as git diff-index does.
func TestStagedChangesFromTheCachedTree(t *testing.T) {
	ctx := context.Background()
	base := func(t *testing.T, args ...string) *testgit.Repo {
		r := testgit.Plain(t, t.TempDir())
		r.Git(append([]string{"init", "-q"}, args...)...)
		r.Write("a.go", "package a\n")
		r.Write("sub/b.go", "package sub\n")
		r.Write("other/c.go", "package other\n")
		r.Commit("init")
		return r
	}
	cases := []struct {
		name   string
		init   []string // git init's flags
		prefix string
		change func(t *testing.T, r *testgit.Repo)
		cached bool     // the cached tree answers
		want   []string // what git diff-index lists
	}{
		{name: "committed", change: func(*testing.T, *testgit.Repo) {}, cached: true},
		{name: "edited, not staged", change: func(t *testing.T, r *testgit.Repo) { r.Write("a.go", "package a // 2\n") }, cached: true},
		{name: "untracked file", change: func(t *testing.T, r *testgit.Repo) { r.Write("new.go", "package a\n") }, cached: true},
		{name: "staged edit", change: func(t *testing.T, r *testgit.Repo) {
			r.Write("a.go", "package a // 2\n")
			r.Git("add", "a.go")
		}, want: []string{"M a.go"}},
		{name: "staged, then reset", change: func(t *testing.T, r *testgit.Repo) {
			r.Write("a.go", "package a // 2\n")
			r.Git("add", "a.go")
			r.Git("reset", "-q") // leaves the cached tree invalid: git is asked
		}},
		{name: "staged, reset, the tree written", change: func(t *testing.T, r *testgit.Repo) {
			r.Write("a.go", "package a // 2\n")
			r.Git("add", "a.go")
			r.Git("reset", "-q")
			r.Git("write-tree")
		}, cached: true},
		{name: "staged and the tree written", change: func(t *testing.T, r *testgit.Repo) {
			r.Write("a.go", "package a // 2\n")
			r.Git("add", "a.go")
			r.Git("write-tree")
		}, want: []string{"M a.go"}},
		{name: "added with intent to add, the tree written", change: func(t *testing.T, r *testgit.Repo) {
			r.Write("new.go", "package a\n")
			r.Git("add", "-N", "new.go")
			r.Git("write-tree")
		}, want: []string{"A new.go"}},
		{name: "removed from the index", change: func(t *testing.T, r *testgit.Repo) { r.Git("rm", "-q", "--cached", "a.go") },
			want: []string{"D a.go"}},
		{name: "mode staged", change: func(t *testing.T, r *testgit.Repo) {
			if err := os.Chmod(r.Path("a.go"), 0o755); err != nil {
				t.Fatal(err)
			}
			r.Git("add", "a.go")
		}, want: []string{"M a.go"}},
		{name: "unmerged", change: func(t *testing.T, r *testgit.Repo) {
			r.Git("checkout", "-q", "-b", "side")
			r.Write("a.go", "package a // side\n")
			r.Commit("side")
			r.Git("checkout", "-q", "-")
			r.Write("a.go", "package a // main\n")
			r.Commit("main")
			r.Try("merge", "-q", "side") // conflicts
		}, want: []string{"U a.go"}},
		{name: "index version 4", change: func(t *testing.T, r *testgit.Repo) {
			r.Git("update-index", "--index-version", "4")
			r.Write("deeper/still/d.go", "package still\n")
			r.Commit("v4")
		}, cached: true},
		{name: "index version 4, staged", change: func(t *testing.T, r *testgit.Repo) {
			r.Git("update-index", "--index-version", "4")
			r.Write("sub/b.go", "package sub // 2\n")
			r.Git("add", "sub/b.go")
		}, want: []string{"M sub/b.go"}},
		{name: "index version 3 (skip-worktree), the tree written", change: func(t *testing.T, r *testgit.Repo) {
			r.Git("update-index", "--skip-worktree", "other/c.go")
			r.Git("write-tree")
			if data, err := os.ReadFile(r.Path(".git/index")); err != nil || data[7] != 3 {
				t.Fatalf("the index is not of version 3 (%v)", err)
			}
		}, cached: true},
		{name: "split index", change: func(t *testing.T, r *testgit.Repo) { r.Git("update-index", "--split-index") }},
		{name: "SHA-256 objects", init: []string{"--object-format=sha256"}, change: func(*testing.T, *testgit.Repo) {}, cached: true},
		{name: "SHA-256 objects, staged", init: []string{"--object-format=sha256"}, change: func(t *testing.T, r *testgit.Repo) {
			r.Write("a.go", "package a // 2\n")
			r.Git("add", "a.go")
		}, want: []string{"M a.go"}},
		{name: "folder, staged outside it", prefix: "sub", change: func(t *testing.T, r *testgit.Repo) {
			r.Write("other/c.go", "package other // 2\n")
			r.Git("add", "other/c.go")
		}, cached: true},
		{name: "folder, staged inside it", prefix: "sub", change: func(t *testing.T, r *testgit.Repo) {
			r.Write("sub/b.go", "package sub // 2\n")
			r.Git("add", "sub/b.go")
		}, want: []string{"M b.go"}}, // the folder's own path
		{name: "folder not in HEAD", prefix: "none", change: func(*testing.T, *testgit.Repo) {}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := base(t, c.init...)
			c.change(t, r)
			g := newGit(r.Dir, c.prefix)
			if got := g.indexIsHead(ctx); got != c.cached {
				t.Errorf("the cached tree answers: %v, want %v", got, c.cached)
			}
			want := append([]string{}, c.want...)
			if byGit := staged(t, g.stagedByGit); !slices.Equal(byGit, want) {
				t.Fatalf("git diff-index lists %q, the case says %q", byGit, want)
			}
			if got := staged(t, g.StagedChanges); !slices.Equal(got, want) {
				t.Errorf("StagedChanges = %q, want %q", got, want)
			}
			if got := staged(t, headViewStaged(g)); !slices.Equal(got, want) {
				t.Errorf("HeadView's staged = %q, want %q", got, want)
			}
		})
	}
}

// headViewStaged is what HeadView says is staged.
func headViewStaged(g *Git) func(context.Context) ([]Change, error) {
	return func(ctx context.Context) ([]Change, error) {
		_, _, staged, err := g.HeadView(ctx)
		return staged, err
	}
}

// TestCachedTreeIgnoresAnotherIndex: with GIT_INDEX_FILE set git reads
// another index, which the cached tree of the work tree's does not speak
// for.
func TestCachedTreeIgnoresAnotherIndex(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.go", "package a\n")
	r.Commit("init")
	t.Setenv("GIT_INDEX_FILE", r.Path(".git/index"))
	if newGit(r.Dir, "").indexIsHead(context.Background()) {
		t.Fatal("the cached tree answered with GIT_INDEX_FILE set")
	}
}

// TestStagedChangesProperty draws sequences of what a developer does to a
// repository's index — edits, adds, adds with intent, removals, commits,
// resets, trees written, index versions — and holds StagedChanges to git
// diff-index after each step, for the top or a folder; the cached tree
// must have answered (no diff-index asked) somewhere.
func TestStagedChangesProperty(t *testing.T) {
	answered := 0
	rapid.Check(t, func(rt *rapid.T) {
		r := testgit.Init(rt, t.TempDir())
		files := []string{"a.go", "x/b.go", "x/y/c.go", "z/d.go"}
		for _, f := range files[:2] {
			r.Write(f, "v0\n")
		}
		r.Commit("init")
		file := rapid.SampledFrom(files)
		prefix := rapid.SampledFrom([]string{"", "x"}).Draw(rt, "folder")
		steps := rapid.IntRange(1, 6).Draw(rt, "steps")
		for i := range steps {
			f := file.Draw(rt, "file")
			// A step Try runs may not apply (nothing to remove, to commit).
			switch op := rapid.IntRange(0, 9).Draw(rt, "op"); op {
			case 0:
				r.Write(f, fmt.Sprintf("v%d\n", i+1))
			case 1:
				r.Write(f, fmt.Sprintf("v%d\n", i+1))
				r.Git("add", f)
			case 2:
				if _, err := os.Stat(r.Path(f)); err == nil {
					r.Try("add", "-N", f)
				}
			case 3:
				r.Try("rm", "-q", "--cached", f)
			case 4:
				r.Commit(fmt.Sprintf("step %d", i))
			case 5:
				r.Git("reset", "-q")
			case 6:
				r.Try("write-tree")
			case 7:
				r.Git("update-index", "--index-version", rapid.SampledFrom([]string{"2", "3", "4"}).Draw(rt, "version"))
			case 8:
				r.Try("commit", "-q", "-m", fmt.Sprintf("staged %d", i))
			case 9:
				r.Git("checkout", "-q", "HEAD", "--", ".")
			}
			g := newGit(r.Dir, prefix)
			want := staged(rt, g.stagedByGit)
			asked := false
			g.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
				asked = asked || args[0] == "diff-index"
				return ExecGit(ctx, dir, args...)
			}
			if got := staged(rt, g.StagedChanges); !slices.Equal(got, want) {
				rt.Fatalf("step %d, folder %q: StagedChanges = %q, git diff-index %q", i, prefix, got, want)
			}
			if got := staged(rt, headViewStaged(g)); !slices.Equal(got, want) {
				rt.Fatalf("step %d, folder %q: HeadView's staged = %q, git diff-index %q", i, prefix, got, want)
			}
			if !asked {
				answered++
			}
		}
	})
	if answered == 0 {
		t.Fatal("the cached tree never answered")
	}
}

// FuzzCachedTree: no index, however malformed, makes cachedTree panic or
// return an object id of another length than asked.
func FuzzCachedTree(f *testing.F) {
	r := testgit.New(f)
	r.Write("a.go", "package a\n")
	r.Write("x/y/b.go", "package y\n")
	r.Commit("init")
	data, err := os.ReadFile(r.Path(".git/index"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, "")
	f.Add(data, "x/y")
	r.Git("update-index", "--index-version", "4")
	if data, err = os.ReadFile(r.Path(".git/index")); err != nil {
		f.Fatal(err)
	}
	f.Add(data, "x")
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00TREE\x00\x00\x00\x06\x00-1 0\n"+strings.Repeat("\x00", 20)), "")
	f.Fuzz(func(t *testing.T, data []byte, prefix string) {
		for _, n := range []int{20, 32} {
			oid, err := cachedTree(data, n, filepath.ToSlash(prefix))
			if err == nil && len(oid) != n {
				t.Fatalf("an object id of %d bytes, want %d", len(oid), n)
			}
		}
	})
}

// TestCachedTreeRefusesWhatNoTreeHolds: an entry added with intent to add,
// or unmerged, is in no tree; git leaves the cached trees above it invalid,
// but an index whose cached tree is valid beside one (written by another
// tool) is not taken at its word. The entries' flags are set in a valid
// index's bytes. Nor is an index with an extension git must understand
// to read it (lower-case), which may change what its entries mean.
func TestCachedTreeRefusesWhatNoTreeHolds(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.go", "package a\n")
	r.Write("other/c.go", "package other\n")
	r.Commit("init")
	head, err := hexOID(r.Git("rev-parse", "HEAD^{tree}"))
	if err != nil {
		t.Fatal(err)
	}
	read := func() []byte {
		data, err := os.ReadFile(r.Path(".git/index"))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	at := func(data []byte, name string) int {
		i := strings.Index(string(data), name+"\x00")
		if i < 0 {
			t.Fatalf("no entry %s", name)
		}
		return i
	}
	v2 := read()
	if oid, err := cachedTree(v2, len(head), ""); err != nil || !slices.Equal(oid, head) {
		t.Fatalf("the committed index: %x, %v; want HEAD's tree %x", oid, err, head)
	}
	withExtension := func(sig string) []byte { // an empty one, before the checksum
		end := len(v2) - len(head)
		return slices.Concat(v2[:end], []byte(sig), []byte{0, 0, 0, 0}, v2[end:])
	}
	if oid, err := cachedTree(withExtension("ZZZZ"), len(head), ""); err != nil || !slices.Equal(oid, head) {
		t.Errorf("an optional extension git may skip: %x, %v; want HEAD's tree", oid, err)
	}
	if _, err := cachedTree(withExtension("zzzz"), len(head), ""); err == nil {
		t.Error("an index with an extension git must understand was taken at its word")
	}
	unmerged := slices.Clone(v2)
	unmerged[at(unmerged, "a.go")-2] |= 0x10 // stage 1
	if _, err := cachedTree(unmerged, len(head), ""); err == nil {
		t.Error("an index with an unmerged entry was taken at its word")
	}
	r.Git("update-index", "--skip-worktree", "other/c.go")
	r.Git("write-tree")
	v3 := read()
	if oid, err := cachedTree(v3, len(head), ""); err != nil || !slices.Equal(oid, head) {
		t.Fatalf("the index of version 3: %x, %v; want HEAD's tree %x", oid, err, head)
	}
	i := at(v3, "other/c.go")
	v3[i-2] = v3[i-2]&^0x40 | 0x20 // skip-worktree becomes intent to add
	if _, err := cachedTree(v3, len(head), ""); err == nil {
		t.Error("an index with an entry added with intent to add was taken at its word")
	}
}

func hexOID(s string) ([]byte, error) { return hex.DecodeString(strings.TrimSpace(s)) }

// TestCachedTreeInALinkedWorktree: a linked worktree has an index of its
// own, in its folder of the git folder; its cached tree speaks for it.
func TestCachedTreeInALinkedWorktree(t *testing.T) {
	ctx := context.Background()
	r := testgit.New(t)
	r.Write("a.go", "package a\n")
	r.Commit("init")
	dir := filepath.Join(t.TempDir(), "linked")
	r.Git("worktree", "add", "-q", "-b", "linked", dir)
	w := testgit.Plain(t, dir)
	g := newGit(w.Dir, "")
	if !g.indexIsHead(ctx) {
		t.Fatal("the linked worktree's cached tree does not answer")
	}
	r.Write("a.go", "package a // staged in the main worktree\n")
	r.Git("add", "a.go")
	if got := staged(t, g.StagedChanges); len(got) != 0 {
		t.Fatalf("the main worktree's staged change is listed in the linked one: %q", got)
	}
	w.Write("a.go", "package a // staged in the linked worktree\n")
	w.Git("add", "a.go")
	if got, byGit := staged(t, g.StagedChanges), staged(t, g.stagedByGit); !slices.Equal(got, []string{"M a.go"}) || !slices.Equal(got, byGit) {
		t.Fatalf("StagedChanges = %q, git diff-index %q, want [M a.go]", got, byGit)
	}
}

// TestCutIndexIsNoAnswer: an index file cut shorter while it is mapped
// (git replaces its index whole; another tool might write it in place)
// faults when read there, and the cached tree then gives no answer rather
// than ending the process.
func TestCutIndexIsNoAnswer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a read past the end of a mapped file faults on Linux")
	}
	r := testgit.New(t)
	r.Write("a.go", "package a\n")
	r.Commit("init")
	head, err := hexOID(r.Git("rev-parse", "HEAD^{tree}"))
	if err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(t.TempDir(), "index")
	data, err := os.ReadFile(r.Path(".git/index"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(index, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mapped, release, err := mapFile(index)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if !mappedTreeIs(mapped, head, "") {
		t.Fatal("the whole index's cached tree is not HEAD's")
	}
	if err := os.Truncate(index, 0); err != nil {
		t.Fatal(err)
	}
	if mappedTreeIs(mapped, head, "") {
		t.Fatal("an index cut to nothing answered")
	}
}

// TestHeadViewIsHeadBehindAndStaged: HeadView says what HeadBehind and
// StagedChanges say, in a repository without commits, with no upstream,
// behind its upstream, with its upstream gone, detached, and for a folder
// HEAD does not hold; where HEAD and the folder's tree resolve it asks one
// rev-parse for both.
func TestHeadViewIsHeadBehindAndStaged(t *testing.T) {
	ctx := context.Background()
	committed := func(t *testing.T) *testgit.Repo {
		r := testgit.New(t)
		r.Write("a.go", "package a\n")
		r.Write("sub/b.go", "package sub\n")
		r.Commit("init")
		return r
	}
	behindTwo := func(t *testing.T) *testgit.Repo {
		up := testgit.Bare(t)
		r := committed(t)
		r.Git("remote", "add", "origin", up.Dir)
		r.Git("push", "-q", "-u", "origin", "HEAD:main")
		r.Write("a.go", "package a // 2\n")
		r.Commit("two")
		r.Write("a.go", "package a // 3\n")
		r.Commit("three")
		r.Git("push", "-q", "origin", "HEAD:main")
		r.Git("reset", "-q", "--hard", "HEAD~2")
		return r
	}
	cases := []struct {
		name    string
		repo    func(t *testing.T) *testgit.Repo
		prefix  string
		behind  int
		oneStep bool // one rev-parse answers HEAD and the folder's tree
	}{
		{name: "no commits", repo: func(t *testing.T) *testgit.Repo { return testgit.New(t) }},
		{name: "no upstream", repo: committed, oneStep: true},
		{name: "a folder", repo: committed, prefix: "sub", oneStep: true},
		{name: "a folder HEAD does not hold", repo: committed, prefix: "none"},
		{name: "staged", repo: func(t *testing.T) *testgit.Repo {
			r := committed(t)
			r.Write("a.go", "package a // staged\n")
			r.Git("add", "a.go")
			return r
		}, oneStep: true},
		{name: "behind its upstream", repo: behindTwo, behind: 2, oneStep: true},
		{name: "its upstream gone", repo: func(t *testing.T) *testgit.Repo {
			r := behindTwo(t)
			r.Git("update-ref", "-d", "refs/remotes/origin/main")
			return r
		}, oneStep: true},
		{name: "detached", repo: func(t *testing.T) *testgit.Repo {
			r := behindTwo(t)
			r.Git("checkout", "-q", "--detach")
			return r
		}, oneStep: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.repo(t)
			if c.prefix != "" {
				os.MkdirAll(r.Path(c.prefix), 0o755)
			}
			g := newGit(r.Dir, c.prefix)
			wantHead, wantBehind, err := g.HeadBehind(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var wantStaged []string
			if wantHead != "" {
				wantStaged = staged(t, g.StagedChanges)
			}
			revParses := 0
			g.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
				if args[0] == "rev-parse" {
					revParses++
				}
				return ExecGit(ctx, dir, args...)
			}
			head, behind, changes, err := g.HeadView(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got := staged(t, func(context.Context) ([]Change, error) { return changes, nil })
			if head != wantHead || behind != wantBehind || behind != c.behind || (wantHead != "" && !slices.Equal(got, wantStaged)) {
				t.Fatalf("HeadView: %q, %d behind, staged %q; HeadBehind and StagedChanges: %q, %d behind, staged %q (the case says %d behind)",
					head, behind, got, wantHead, wantBehind, wantStaged, c.behind)
			}
			if wantHead == "" && len(changes) != 0 {
				t.Fatalf("no HEAD, yet staged %q", got)
			}
			if (revParses == 1) != c.oneStep {
				t.Fatalf("%d rev-parse processes; one answering both: %v", revParses, c.oneStep)
			}
		})
	}
}
