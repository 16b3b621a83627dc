package scope

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/freshness"
)

// walkTree is a temporary tree a rapid check draws files into; its
// caller removes root.
type walkTree struct {
	t    *rapid.T
	root string
	dirs []string
	all  []string // the files written, root-relative
}

func newWalkTree(t *rapid.T, dirs []string) *walkTree {
	root, err := os.MkdirTemp("", "walk")
	if err != nil {
		t.Fatal(err)
	}
	return &walkTree{t: t, root: root, dirs: dirs}
}

// write draws up to most files into the tree's folders, each holding label.
func (tr *walkTree) write(label string, most int) {
	for range rapid.IntRange(0, most).Draw(tr.t, label) {
		dir := rapid.SampledFrom(tr.dirs).Draw(tr.t, label+" dir")
		name := rapid.SampledFrom([]string{"x.go", "y.py", "z.txt", "w.go"}).Draw(tr.t, label+" name")
		os.MkdirAll(filepath.Join(tr.root, dir), 0o755)
		os.WriteFile(filepath.Join(tr.root, dir, name), []byte(label), 0o644)
		tr.all = append(tr.all, strings.TrimPrefix(dir+"/"+name, "/"))
	}
}

// sequentialWalk is the walk as one filepath.WalkDir: the reference the
// parallel walk must agree with.
func sequentialWalk(root string, scope []string, since time.Time) []scopeEntry {
	var out []scopeEntry
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (SkipDirs[d.Name()] || !scopeDirMatch(scope, rel)) {
				return fs.SkipDir
			}
		} else if !matchScope(scope, rel) {
			return nil
		}
		if info, err := d.Info(); err == nil && freshness.ChangeTime(info).After(since) {
			out = append(out, scopeEntry{path: rel, at: freshness.ChangeTime(info), dir: d.IsDir()})
		}
		return nil
	})
	return out
}

func TestWalkScopeAgreesWithOneWalk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tree := newWalkTree(t, []string{"", "a", "a/b", "node_modules", ".git", "c", "c/d/e"})
		defer os.RemoveAll(tree.root)
		root := tree.root
		tree.write("before", 6)
		since := time.Now()
		time.Sleep(2 * time.Millisecond)
		tree.write("after", 6)
		scope := rapid.SampledFrom([][]string{{"**"}, {"a/**"}, {"**/*.go"}, {"c/d/**", "a/*.py"}}).Draw(t, "scope")
		got := Walk(root, scope, since)
		want := sequentialWalk(root, scope, since)
		key := func(e scopeEntry) string { return e.path }
		gotPaths, wantPaths := sortedPaths(got.entries, key), sortedPaths(want, key)
		if !slices.Equal(gotPaths, wantPaths) || !got.complete {
			t.Fatalf("scope %v: walk found %v (complete %v), one WalkDir %v", scope, gotPaths, got.complete, wantPaths)
		}
		if !slices.IsSortedFunc(got.entries, func(a, b scopeEntry) int { return b.at.Compare(a.at) }) {
			t.Fatal("entries are not latest first")
		}
	})
}

func sortedPaths(es []scopeEntry, key func(scopeEntry) string) []string {
	var out []string
	for _, e := range es {
		out = append(out, key(e))
	}
	slices.SortFunc(out, strings.Compare)
	return out
}

// TestWalkLeavingAgreesWithTheWalk: a walk that leaves files to another
// stat, then fills in those that stat did not find fresh, keeps what the
// whole walk keeps but the files found fresh (which ChangedSince passes
// over anyway), lists as left exactly the listed files of the scope it
// was asked to leave, and is as complete.
func TestWalkLeavingAgreesWithTheWalk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tree := newWalkTree(t, []string{"", "a", "a/b", "node_modules", "c", "c/d/e"})
		defer os.RemoveAll(tree.root)
		root := tree.root
		tree.write("before", 8)
		if rapid.Bool().Draw(t, "link") && len(tree.all) > 0 {
			target := rapid.SampledFrom(tree.all).Draw(t, "link target")
			os.MkdirAll(filepath.Join(root, "a"), 0o755)
			os.Symlink(filepath.Join(root, target), filepath.Join(root, "a", "link.go"))
			tree.all = append(tree.all, "a/link.go")
		}
		time.Sleep(10 * time.Millisecond) // past the file clock's tick
		since := time.Now()
		time.Sleep(10 * time.Millisecond)
		tree.write("after", 8)
		all := tree.all
		scope := rapid.SampledFrom([][]string{{"**"}, {"a/**"}, {"**/*.go"}, {"c/d/**", "a/*.py"}}).Draw(t, "scope")
		leave, fresh := map[string]bool{}, map[string]bool{}
		for _, p := range all {
			if rapid.Bool().Draw(t, "leave "+p) {
				leave[p] = true
				fresh[p] = rapid.Bool().Draw(t, "fresh "+p)
			}
		}
		want := Walk(root, scope, since)
		got := WalkLeaving(root, scope, since, func(rel string) bool { return leave[rel] })
		got.Fill(func(rel string) bool { return !fresh[rel] })
		key := func(e scopeEntry) string { return e.path }
		var wantKept []scopeEntry
		for _, e := range want.entries {
			if e.dir || !fresh[e.path] {
				wantKept = append(wantKept, e)
			}
		}
		if g, w := sortedPaths(got.entries, key), sortedPaths(wantKept, key); !slices.Equal(g, w) || got.complete != want.complete {
			t.Fatalf("scope %v, leaving %v (fresh %v): kept %v (complete %v), the whole walk %v (complete %v)",
				scope, leave, fresh, g, got.complete, w, want.complete)
		}
		var wantLeft []string
		for p := range leave {
			if info, err := os.Lstat(filepath.Join(root, p)); err == nil && !info.IsDir() && matchScope(scope, p) && !SkipDirs[strings.Split(p, "/")[0]] {
				wantLeft = append(wantLeft, p)
			}
		}
		slices.Sort(wantLeft)
		if !slices.Equal(got.Left(), wantLeft) {
			t.Fatalf("scope %v: left %v, want %v", scope, got.Left(), wantLeft)
		}
		if !slices.IsSortedFunc(got.entries, func(a, b scopeEntry) int { return b.at.Compare(a.at) }) {
			t.Fatal("entries are not latest first")
		}
		a, b := want.ChangedSince(since, since, fresh), got.ChangedSince(since, since, fresh)
		if a.Count != b.Count || a.Complete != b.Complete {
			t.Fatalf("ChangedSince: %d changed (complete %v) against the whole walk's %d (%v)", b.Count, b.Complete, a.Count, a.Complete)
		}
	})
}
