package workspace

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testbench"
	"github.com/freshctx/freshctx/internal/testgit"
)

func TestLsFilesTrackedAndUntrackedNotIgnored(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.go", "a")
	r.Write(".gitignore", "*.log\n")
	r.Commit("init")
	r.Write("new/b.go", "b")
	r.Write("x.log", "ignored")
	ws, _ := Discover(r.Dir)
	got, err := ws.Git.LsFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{".gitignore", "a.go", "new/b.go"}; !slices.Equal(got, want) {
		t.Fatalf("LsFiles = %v, want %v", got, want)
	}
}

func TestDiffTreesCommitChangesAndAncestry(t *testing.T) {
	r := testgit.New(t)
	r.Write("keep.go", "k")
	r.Write("gone.go", "g")
	first := r.Commit("first")
	r.Write("keep.go", "k2")
	r.Remove("gone.go")
	r.Write("added.go", "a")
	second := r.Commit("second")
	ws, _ := Discover(r.Dir)
	ctx := context.Background()
	changes, err := ws.Git.DiffTrees(ctx, first, second)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, string(c.Status)+" "+c.Path)
	}
	if want := []string{"A added.go", "D gone.go", "M keep.go"}; !slices.Equal(got, want) {
		t.Fatalf("DiffTrees = %v, want %v", got, want)
	}
	root, err := ws.Git.CommitChanges(ctx, first)
	if err != nil || len(root) != 2 {
		t.Fatalf("CommitChanges(root) = %v, %v", root, err)
	}
	if ok, _ := ws.Git.IsAncestor(ctx, first, second); !ok {
		t.Error("first should be an ancestor of second")
	}
	if ok, _ := ws.Git.IsAncestor(ctx, second, first); ok {
		t.Error("second is not an ancestor of first")
	}
	if ok, _ := ws.Git.IsAncestor(ctx, strings.Repeat("a", 40), second); ok {
		t.Error("a missing commit is no ancestor")
	}
	if c, err := ws.Git.ResolveCommit(ctx, strings.Repeat("b", 40)); err != nil || c != "" {
		t.Errorf("ResolveCommit(missing) = %q, %v", c, err)
	}
	if c, _ := ws.Git.ResolveCommit(ctx, "HEAD"); c != second {
		t.Errorf("ResolveCommit(HEAD) = %q", c)
	}
	if p, _ := ws.Git.Parents(ctx, second); !slices.Equal(p, []string{first}) {
		t.Errorf("Parents = %v", p)
	}
}

func TestStatusFilesListsUntrackedFiles(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.go", "a")
	r.Commit("init")
	r.Write("dir/sub/new.go", "n")
	ws, _ := Discover(r.Dir)
	st, err := ws.Git.StatusFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range st.Entries() {
		paths = append(paths, e.Path)
	}
	if !slices.Equal(paths, []string{"dir/sub/new.go"}) {
		t.Fatalf("entries = %v", paths)
	}
}

func TestReadHead(t *testing.T) {
	r := testgit.New(t)
	ws, _ := Discover(r.Dir)
	ctx := context.Background()
	if h, err := ws.Git.ReadHead(ctx); err != nil || h != (Head{Branch: "main"}) {
		t.Fatalf("unborn: %+v, %v", h, err)
	}
	r.Write("a", "a")
	c := r.Commit("one")
	h, err := ws.Git.ReadHead(ctx)
	if err != nil || h.Branch != "main" || h.Commit != c || h.Tree != r.Git("rev-parse", "HEAD^{tree}") {
		t.Fatalf("ReadHead = %+v, %v", h, err)
	}
	r.Git("checkout", "-q", "--detach")
	if h, _ := ws.Git.ReadHead(ctx); h.Branch != "" || h.Commit != c {
		t.Fatalf("detached: %+v", h)
	}
}

func TestTrackedListsTheIndexOnly(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.go", "a")
	r.Write("gone.go", "g")
	r.Write(".gitignore", "*.log\n")
	r.Commit("init")
	r.Write("staged.go", "s")
	r.Git("add", "staged.go")
	r.Remove("gone.go") // unstaged: still in the index
	r.Write("new/b.go", "untracked")
	r.Write("x.log", "ignored")
	ws, _ := Discover(r.Dir)
	got, err := ws.Git.Tracked(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{".gitignore", "a.go", "gone.go", "staged.go"}; !slices.Equal(got, want) {
		t.Fatalf("Tracked = %v, want %v", got, want)
	}
}

// TestIndexEntriesOfPaths: the index entries of the paths asked, as git
// lists them, whether asked by pathspec (a few) or picked out of the
// whole index (many); from a workspace below the top, root-relative; a
// path with a space and a symlink included, a path not in the index left
// out.
func TestIndexEntriesOfPaths(t *testing.T) {
	r := testgit.New(t)
	var all []string
	for i := range maxPathspecs + 8 {
		p := fmt.Sprintf("sub/f %02d.go", i)
		r.Write(p, fmt.Sprintf("package sub // %d\n", i))
		all = append(all, strings.TrimPrefix(p, "sub/"))
	}
	if err := os.Symlink("f 00.go", r.Path("sub/link")); err != nil {
		t.Fatal(err)
	}
	all = append(all, "link")
	r.Write("top.go", "package top\n")
	r.Commit("init")
	want := map[string]IndexEntry{}
	for _, line := range strings.Split(strings.TrimSuffix(r.Git("ls-files", "--stage", "-z"), "\x00"), "\x00") {
		meta, p, _ := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if rel, ok := strings.CutPrefix(p, "sub/"); ok {
			want[rel] = IndexEntry{OID: f[1], Mode: f[0]}
		}
	}
	ws, err := Open(r.Path("sub"))
	if err != nil || ws.Git == nil {
		t.Fatalf("workspace of sub: %v", err)
	}
	for _, asked := range [][]string{all[:3], append(slices.Clone(all[2:]), "not-there.go")} {
		got, err := ws.Git.Index(context.Background(), asked)
		if err != nil {
			t.Fatal(err)
		}
		exp := map[string]IndexEntry{}
		for _, p := range asked {
			if e, ok := want[p]; ok {
				exp[p] = e
			}
		}
		if !maps.Equal(got, exp) {
			t.Errorf("Index of %d paths = %v, want %v", len(asked), got, exp)
		}
	}
	if e := want["link"]; e.Mode != "120000" {
		t.Fatalf("the symlink's entry: %+v", e)
	}
}

// TestTreeEntriesAgreeWithTheIndex: at a commit the index matches, the
// entries TreeEntries reads from the commit's tree are the ones Index
// reads from the index — a file, an executable, a symlink and a gitlink,
// in a workspace below the repository's top, with spaces and non-ASCII in
// their names — and a folder or an absent path has none. More paths than
// pathspecs serve are left to Index.
func TestTreeEntriesAgreeWithTheIndex(t *testing.T) {
	r := testgit.New(t)
	r.Write("sub/plain file.go", "package sub\n")
	r.Write("sub/café/run.sh", "#!/bin/sh\n")
	if err := os.Chmod(r.Path("sub/café/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("plain file.go", r.Path("sub/link")); err != nil {
		t.Fatal(err)
	}
	r.Write("top.go", "package top\n")
	head := r.Commit("init")
	r.Git("update-index", "--add", "--cacheinfo", "160000,"+head+",sub/module")
	r.Git("commit", "-q", "-m", "a gitlink") // not Commit: its add -A would drop the gitlink
	head = r.Git("rev-parse", "HEAD")
	ws, err := Open(r.Path("sub"))
	if err != nil || ws.Git == nil {
		t.Fatalf("workspace of sub: %v", err)
	}
	ctx := context.Background()
	paths := []string{"plain file.go", "café/run.sh", "link", "module", "café", "not-there.go"}
	want, err := ws.Git.Index(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 4 || want["module"].Mode != "160000" || want["café/run.sh"].Mode != "100755" {
		t.Fatalf("the index's entries: %v", want)
	}
	got, ok, err := ws.Git.TreeEntries(ctx, head, paths)
	if err != nil || !ok {
		t.Fatalf("TreeEntries: %v, %v", ok, err)
	}
	if !maps.Equal(got, want) {
		t.Errorf("TreeEntries = %v, want the index's %v", got, want)
	}
	// A small index: as many paths as a command line of pathspecs serves.
	takes(t, ws.Git, head, paths[0], want[paths[0]], maxPathspecs)
}

// takes fails unless TreeEntries of head answers for n paths (path among
// them, with its entry e, the others absent) and leaves n+1 to Index.
func takes(t *testing.T, g *Git, head, path string, e IndexEntry, n int) {
	t.Helper()
	some := make([]string, n+1)
	for i := range some {
		some[i] = fmt.Sprintf("absent/f%d.go", i)
	}
	some[0] = path
	ctx := context.Background()
	if got, ok, err := g.TreeEntries(ctx, head, some[:n]); !ok || err != nil || !maps.Equal(got, map[string]IndexEntry{path: e}) {
		t.Errorf("TreeEntries of %d paths = %v, %v, %v; want %s's entry alone", n, got, ok, err, path)
	}
	if got, ok, err := g.TreeEntries(ctx, head, some); ok || err != nil || got != nil {
		t.Errorf("TreeEntries of %d paths = %v, %v, %v; want them left to Index", n+1, got, ok, err)
	}
}

// TestTreeEntriesTakeMoreInALargerIndex: ls-tree reads only the folders on
// the paths' way, so TreeEntries takes a hundredth of the index's entries
// in paths (5,000 entries: 50), never fewer than maxPathspecs nor more
// than maxTreePaths (30,000 entries).
func TestTreeEntriesTakeMoreInALargerIndex(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.go", "package a\n")
	head := r.Commit("init")
	e := IndexEntry{OID: strings.TrimSpace(r.Git("rev-parse", "HEAD:a.go")), Mode: "100644"}
	g := newGit(r.Dir, "")
	for _, c := range []struct{ entries, takes int }{{5_000, 50}, {30_000, maxTreePaths}} {
		var info strings.Builder
		for i := range c.entries - 1 {
			fmt.Fprintf(&info, "100644 %s\tmore/f%05d.go\n", e.OID, i)
		}
		r.GitInput(info.String(), "update-index", "--index-info")
		if n, _ := g.indexSize(); n != c.entries {
			t.Fatalf("the index holds %d entries, want %d", n, c.entries)
		}
		takes(t, g, head, "a.go", e, c.takes)
		r.Git("read-tree", "HEAD")
	}
}

// paths reads git's NUL-separated listing: empty entries and a missing
// last NUL change nothing, and in a workspace below git's top level only
// the paths under it are kept, relative to it.
func TestPathsReadsGitsListing(t *testing.T) {
	for _, c := range []struct {
		prefix, out string
		want        []string
	}{
		{"", "", []string{}},
		{"", "\x00", []string{}},
		{"", "a.go\x00b/c.go\x00", []string{"a.go", "b/c.go"}},
		{"", "a.go\x00\x00b/c.go", []string{"a.go", "b/c.go"}},
		{"", "name with spaces\x00tab\there\x00new\nline\x00", []string{"name with spaces", "tab\there", "new\nline"}},
		{"sub", "sub/a.go\x00subway/b.go\x00other/c.go\x00sub/d/e.go\x00sub\x00", []string{"a.go", "d/e.go", "."}},
	} {
		g := &Git{prefix: c.prefix}
		if got := g.paths([]byte(c.out)); !slices.Equal(got, c.want) {
			t.Errorf("prefix %q, %q: %q, want %q", c.prefix, c.out, got, c.want)
		}
	}
}

// BenchmarkPaths100k reads git's listing of a work tree of 100,000 files
// and, in turn, splits it into a string a path (what paths did before):
// ms a listing each, and x_split, the ratio.
func BenchmarkPaths100k(b *testing.B) {
	var out strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&out, "pkg%03d/sub%02d/file%06d.go\x00", i/10000, i/100%100, i)
	}
	listing := []byte(out.String())
	g := &Git{}
	timed := func(read func() []string) time.Duration {
		start := time.Now()
		if n := len(read()); n != 100_000 {
			b.Fatalf("%d paths", n)
		}
		return time.Since(start)
	}
	var cut, split []time.Duration
	for b.Loop() {
		cut = append(cut, timed(func() []string { return g.paths(listing) }))
		split = append(split, timed(func() []string {
			var paths []string
			for _, f := range bytes.Split(listing, []byte{0}) {
				if len(f) > 0 {
					paths = append(paths, string(f))
				}
			}
			return paths
		}))
	}
	testbench.MedianMS(b, cut, "cut_ms")
	testbench.MedianMS(b, split, "split_ms")
	testbench.Ratio(b, split, cut, "x_split")
}
