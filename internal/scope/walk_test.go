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
		root, err := os.MkdirTemp("", "walk")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(root)
		dirs := []string{"", "a", "a/b", "node_modules", ".git", "c", "c/d/e"}
		write := func(label string) {
			for range rapid.IntRange(0, 6).Draw(t, label) {
				dir := rapid.SampledFrom(dirs).Draw(t, label+" dir")
				name := rapid.SampledFrom([]string{"x.go", "y.py", "z.txt", "w.go"}).Draw(t, label+" name")
				os.MkdirAll(filepath.Join(root, dir), 0o755)
				os.WriteFile(filepath.Join(root, dir, name), []byte(label), 0o644)
			}
		}
		write("before")
		since := time.Now()
		time.Sleep(2 * time.Millisecond)
		write("after")
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
