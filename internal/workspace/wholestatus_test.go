package workspace

import (
	"context"
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

// sameStatus fails unless the whole-tree status asked as one git and as
// two at once say the same of the workspace at prefix.
func sameStatus(t rapid.TB, top, prefix string) {
	g := newGit(top, prefix)
	one, err := g.oneStatus().run(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	split, err := g.splitStatus().run(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	a, err := one.parse(g)
	if err != nil {
		t.Fatal(err)
	}
	b, err := split.parse(g)
	if err != nil {
		t.Fatal(err)
	}
	if a.Head != b.Head || a.Branch != b.Branch || a.Dirty() != b.Dirty() {
		t.Fatalf("one status: head %q branch %q dirty %v; split: head %q branch %q dirty %v",
			a.Head, a.Branch, a.Dirty(), b.Head, b.Branch, b.Dirty())
	}
	if ea, eb := listed(a), listed(b); !slices.Equal(ea, eb) {
		t.Fatalf("prefix %q:\none status lists %q\nsplit lists      %q", prefix, ea, eb)
	}
}

func listed(st *Status) []string {
	var out []string
	for _, e := range st.Entries() {
		out = append(out, fmt.Sprintf("%c %s %s", e.Kind, e.XY, e.Path))
	}
	slices.Sort(out)
	return out
}

// TestSplitStatusIsTheStatus holds the two halves (tracked changes, and
// untracked files as ls-files lists them) to the one status they stand for,
// on the shapes where the two listings could part.
func TestSplitStatusIsTheStatus(t *testing.T) {
	r := testgit.New(t)
	r.Write(".gitignore", "*.log\nbuild/\n!keep.log\n")
	for _, f := range []string{"a.go", "dir/b.go", "dir/sub/c.go", "gone.go", "staged.go", "mod.go", "sp ace/d.go"} {
		r.Write(f, "package x\n")
	}
	r.Commit("init")
	r.Remove("gone.go")
	r.Write("mod.go", "package x // changed\n")
	r.Git("rm", "-q", "--cached", "staged.go")
	r.Write("new.go", "untracked at the top")
	r.Write("dir/new.go", "untracked in a tracked folder")
	r.Write("fresh/deep/er/x.go", "a whole untracked folder")
	r.Write("onlyignored/x.log", "an untracked folder holding only ignored files")
	r.Write("dir/y.log", "ignored")
	r.Write("dir/keep.log", "not ignored: negated")
	r.Write("build/out.bin", "ignored folder")
	r.Write("sp ace/new file.go", "a space")
	r.Write("uni/ünï\tcode.go", "unicode and a tab")
	r.Write("dir/-dash.go", "a leading dash")
	r.Write("line\nbreak.go", "a newline in a name")
	for _, d := range []string{"empty/emptier", "nested"} {
		if err := os.MkdirAll(r.Path(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	nested := testgit.Init(t, r.Path("nested"))
	nested.Write("n.go", "a repository inside")
	nested.Commit("n")
	for _, prefix := range []string{"", "dir", "sp ace", "fresh"} {
		sameStatus(t, r.Dir, prefix)
	}
	g := newGit(r.Dir, "")
	st, err := g.splitStatus().run(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := st.parse(g)
	// The shapes are there: both listings could miss them alike.
	for _, want := range []string{"?  fresh/", "?  nested/", "?  line\nbreak.go", "?  dir/keep.log", "?  staged.go", "1 .D gone.go", "1 .M mod.go"} {
		if !slices.Contains(listed(got), want) {
			t.Errorf("the split status does not list %q: %q", want, listed(got))
		}
	}
	for _, not := range []string{"?  onlyignored/", "?  empty/", "?  build/", "?  dir/y.log"} {
		if slices.Contains(listed(got), not) {
			t.Errorf("the split status lists %q", not)
		}
	}
}

// TestSplitStatusProperty draws trees of tracked, changed, deleted,
// ignored and untracked files in nested folders and holds the split status
// to the one status in each.
func TestSplitStatusProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		dir := t.TempDir()
		r := testgit.Init(rt, dir)
		names := rapid.SampledFrom([]string{"a", "b", "c.log", "d.go"})
		path := rapid.Custom(func(rt *rapid.T) string {
			parts := rapid.SliceOfN(rapid.SampledFrom([]string{"x", "y", "ign", "z z"}), 0, 3).Draw(rt, "dirs")
			return filepath.Join(append(parts, names.Draw(rt, "name"))...)
		})
		r.Write(".gitignore", rapid.SampledFrom([]string{"", "*.log\n", "ign/\n", "*.log\n!x/*.log\n"}).Draw(rt, "ignore"))
		tracked := rapid.SliceOfNDistinct(path, 0, 8, rapid.ID).Draw(rt, "tracked")
		for _, p := range tracked {
			r.Write(p, "v1")
		}
		r.Git("add", "-A", "-f")
		r.Commit("c")
		for _, p := range tracked {
			switch rapid.IntRange(0, 3).Draw(rt, "what") {
			case 1:
				r.Write(p, "v2")
			case 2:
				r.Remove(p)
			}
		}
		for _, p := range rapid.SliceOfN(path, 0, 8).Draw(rt, "untracked") {
			if !slices.Contains(tracked, p) && !slices.ContainsFunc(tracked, func(q string) bool { return strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") }) {
				r.Write(p, "new")
			}
		}
		prefix := rapid.SampledFrom([]string{"", "x", "y"}).Draw(rt, "prefix")
		sameStatus(rt, dir, prefix)
	})
}

// TestUntrackedCacheKeepsTheStatusWhole: where the index holds git's
// untracked cache, the one status answers from it and runs whole; where it
// holds none, the status splits (on more than one core, from splitFrom
// entries: here from 1).
func TestUntrackedCacheKeepsTheStatusWhole(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one core: the status never splits")
	}
	r := testgit.New(t)
	r.Write("a.go", "package a\n")
	r.Commit("init")
	r.Write("new/b.go", "untracked")
	splits := func() bool {
		g := newGit(r.Dir, "")
		g.splitFrom = 1
		return g.planWhole().others != nil
	}
	if !splits() {
		t.Fatal("no untracked cache, and the status does not split")
	}
	t.Setenv("GIT_INDEX_FILE", r.Path(".git/index"))
	if splits() {
		t.Fatal("the status splits with GIT_INDEX_FILE set")
	}
	os.Unsetenv("GIT_INDEX_FILE")
	r.Git("config", "core.untrackedCache", "true")
	r.Git("update-index", "--untracked-cache")
	r.Git("status") // fills the cache
	if splits() {
		t.Fatal("the index holds an untracked cache, and the status splits")
	}
	sameStatus(t, r.Dir, "")
}

// TestSmallIndexKeepsTheStatusWhole: below splitFrom entries a second git's
// start costs more than the walk it spares, so the status runs as one; from
// there it splits. The count is the index's own, as git lists it.
func TestSmallIndexKeepsTheStatusWhole(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one core: the status never splits")
	}
	r := testgit.New(t)
	for i := range 5 {
		r.Write(fmt.Sprintf("d%d/f.go", i), "package d\n")
	}
	r.Commit("init")
	r.Write("new/b.go", "untracked")
	n, err := indexEntries(r.Path(".git/index"))
	if err != nil || n != 5 {
		t.Fatalf("the index holds %d entries (%v), want 5", n, err)
	}
	for _, c := range []struct {
		from  int
		split bool
	}{{0, false}, {6, false}, {5, true}, {1, true}} {
		g := newGit(r.Dir, "")
		g.splitFrom = c.from
		if got := g.planWhole().others != nil; got != c.split {
			t.Errorf("from %d entries: split %v, want %v", c.from, got, c.split)
		}
	}
	if splitFrom <= 5 {
		t.Fatalf("splitFrom is %d", splitFrom)
	}
	sameStatus(t, r.Dir, "")
}

// TestIndexEntriesRefusesWhatIsNoIndex: a file too short for the header, or
// without its signature, is no count, and the status stays whole.
func TestIndexEntriesRefusesWhatIsNoIndex(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"short": "DIRC\x00\x00", "other": "NOPE\x00\x00\x00\x02\x00\x01\x00\x00"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if n, err := indexEntries(p); err == nil {
			t.Errorf("%s: %d entries and no error", name, n)
		}
	}
	if _, err := indexEntries(filepath.Join(dir, "none")); !os.IsNotExist(err) {
		t.Errorf("a missing index: %v", err)
	}
}

// TestHoldsFindsAWordAcrossPieces places the word on each side of the
// boundary between two reads.
func TestHoldsFindsAWordAcrossPieces(t *testing.T) {
	const piece = 256 << 10
	for _, at := range []int{-1, 0, 1, piece - 4, piece - 3, piece - 2, piece - 1, piece, 2*piece - 2, 3 * piece} {
		data := make([]byte, 3*piece+10)
		if at >= 0 {
			copy(data[at:], "UNTR")
		}
		p := filepath.Join(t.TempDir(), "index")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		found, err := holds(p, []byte("UNTR"))
		if err != nil || found != (at >= 0) {
			t.Errorf("word at %d: found %v, %v", at, found, err)
		}
	}
	if _, err := holds(filepath.Join(t.TempDir(), "none"), []byte("UNTR")); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v", err)
	}
}

// TestSplitStatusInOtherLayouts holds the split status to the one status
// in a repository with a changed submodule, a sparse checkout and a linked
// work tree, each with untracked files.
func TestSplitStatusInOtherLayouts(t *testing.T) {
	base := t.TempDir()
	lib := testgit.Init(t, mkdir(t, filepath.Join(base, "lib")))
	lib.Write("l.go", "package l\n")
	lib.Commit("lib")
	main := testgit.Init(t, mkdir(t, filepath.Join(base, "main")))
	main.Write("a/a.go", "package a\n")
	main.Write("b/b.go", "package b\n")
	main.Commit("init")
	main.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.Dir, "sub")
	main.Commit("submodule")
	main.Write("sub/l.go", "package l // changed in the submodule\n")
	main.Write("sub/new.go", "untracked in the submodule")
	main.Write("a/new.go", "untracked")
	sameStatus(t, main.Dir, "")

	linked := filepath.Join(base, "linked")
	main.Git("worktree", "add", "-q", "-b", "wt", linked)
	testgit.Plain(t, linked).Write("b/new/x.go", "untracked in the linked tree")
	sameStatus(t, linked, "")

	main.Git("sparse-checkout", "set", "a")
	main.Write("c/new.go", "untracked beside the sparse cone")
	sameStatus(t, main.Dir, "")
}
