package records

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
)

func TestInputScope(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"go.mod", "svc/go.mod", "web/package.json", "py/pyproject.toml", "crate/Cargo.toml"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		cwd  string
		argv []string
		want []string
	}{
		{".", []string{"go", "test", "./args/"}, []string{"go.mod", "go.sum", "args/*"}},
		{".", []string{"go", "test", "-run", "TestX", "./..."}, []string{"go.mod", "go.sum", "**"}},
		{".", []string{"go", "vet", "./a/...", "./b"}, []string{"go.mod", "go.sum", "a/**", "b/*"}},
		{"svc/api", []string{"go", "test"}, []string{"svc/go.mod", "svc/go.sum", "svc/api/*"}},
		{".", []string{"sh", "-c", "CGO_ENABLED=0 go build ./cmd/x"}, []string{"go.mod", "go.sum", "cmd/x/*"}},
		{"crate/src", []string{"cargo", "test"}, []string{"crate/**"}},
		{"web/src", []string{"npx", "jest", "--ci"}, []string{"web/**"}},
		{"web", []string{"npm", "test"}, []string{"web/**"}},
		{"py", []string{"python3", "-m", "pytest", "-q"}, []string{"py/**"}},
		{".", []string{"make", "check"}, []string{"**"}},
		{".", nil, []string{"**"}},
	}
	for _, tt := range tests {
		if got := InputScope(root, tt.cwd, tt.argv); !slices.Equal(got, tt.want) {
			t.Errorf("InputScope(%s, %q) = %q, want %q", tt.cwd, tt.argv, got, tt.want)
		}
	}
}

func TestMatchScope(t *testing.T) {
	tests := []struct {
		scope []string
		path  string
		want  bool
	}{
		{[]string{"args/*"}, "args/args.go", true},
		{[]string{"args/*"}, "args/sub/x.go", false},
		{[]string{"a/**"}, "a/b/c/d.go", true},
		{[]string{"a/**"}, "a", true},
		{[]string{"**"}, "README.md", true},
		{[]string{"**/*.go"}, "x/y.go", true},
		{[]string{"**/*.go"}, "x/y.md", false},
		{[]string{"go.mod"}, "go.mod", true},
		{[]string{"go.mod"}, "svc/go.mod", false},
	}
	for _, tt := range tests {
		if got := matchScope(tt.scope, tt.path); got != tt.want {
			t.Errorf("matchScope(%q, %s) = %v, want %v", tt.scope, tt.path, got, tt.want)
		}
	}
}

// A folder among the changed inputs (its entries changed: a file added or
// removed) is named with a trailing slash, so it is not read as a file.
func TestChangedFoldersEndInASlash(t *testing.T) {
	start := time.Unix(1000, 0)
	later := start.Add(time.Minute)
	st := scopeTimes{complete: true, entries: []scopeEntry{
		{path: "café", at: later, dir: true}, {path: "a.go", at: later}, {path: ".", at: later, dir: true},
	}}
	got := st.changedSince(start, start, nil)
	if want := []string{"café/", "a.go", "./"}; !slices.Equal(got.Paths, want) || got.Count != 3 {
		t.Fatalf("paths = %q (%d), want %q", got.Paths, got.Count, want)
	}
}

// A file the record's check found fresh (touched, or changed and changed
// back) is not among the changed inputs: its bytes are the stamped ones.
// A folder of the same name as a fresh file is still counted.
func TestFreshFilesAreNotChangedInputs(t *testing.T) {
	start := time.Unix(1000, 0)
	later := start.Add(time.Minute)
	st := scopeTimes{complete: true, entries: []scopeEntry{
		{path: "touched.go", at: later}, {path: "edited.go", at: later}, {path: "pkg", at: later, dir: true},
	}}
	got := st.changedSince(start, start, map[string]bool{"touched.go": true, "pkg": true})
	if want := []string{"edited.go", "pkg/"}; !slices.Equal(got.Paths, want) || got.Count != 2 {
		t.Fatalf("paths = %q (%d), want %q", got.Paths, got.Count, want)
	}
}

// A file written in the command's first timer tick can carry a time
// before the record's start by time.Now: the kernel stamps files with a
// coarser clock. The walk counts from the start by that clock, kept with
// the record.
func TestInputsCountFromTheFileClock(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "gen.go")
	if err := os.WriteFile(p, []byte("package gen\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	at := freshness.ChangeTime(info)
	// time.Now read the start just after the write's time; the file clock
	// had read it just before.
	r := &Record{root: root, inputs: []string{"**"}, CreatedAt: at.Add(time.Millisecond), DurationMS: 5,
		fileStart: at.Add(-time.Millisecond), Freshness: &freshness.Result{}}
	checkInputs([]*Record{r})
	if got := r.Freshness.InputsChanged; got.Count != 1 || !slices.Equal(got.Paths, []string{"gen.go"}) {
		t.Fatalf("inputs changed = %d %q, want gen.go", got.Count, got.Paths)
	}
	// A record made before the file clock was kept counts from its start.
	old := &Record{root: root, inputs: []string{"**"}, CreatedAt: at.Add(time.Millisecond), DurationMS: 5,
		Freshness: &freshness.Result{}}
	checkInputs([]*Record{old})
	if got := old.Freshness.InputsChanged; got.Count != 0 {
		t.Fatalf("record without a file clock start: inputs changed = %d %q, want none", got.Count, got.Paths)
	}
}

// A command that writes a file of its scope at once has it among the
// inputs that changed, every time: the file clock's start is kept with
// the record and read back.
func TestAFileWrittenAtTheStartIsAChangedInput(t *testing.T) {
	s, _ := newService(t)
	for i := range 5 {
		rec := run(t, s, fmt.Sprintf("echo %d > gen%d.txt", i, i))
		got, err := s.Get(context.Background(), rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CheckAll(context.Background(), []*Record{got}); err != nil {
			t.Fatal(err)
		}
		if ch := got.Freshness.InputsChanged; !slices.Contains(ch.Paths, fmt.Sprintf("gen%d.txt", i)) {
			t.Fatalf("run %d: inputs changed = %d %q, want gen%d.txt among them", i, ch.Count, ch.Paths, i)
		}
	}
}

// A symlink of the scope changed when its target did; a target the walk
// does not reach on its own leaves the answer incomplete.
func TestScopeWalkFollowsLinks(t *testing.T) {
	root := t.TempDir()
	mk := func(rel, body string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	mk("data/a.txt", "v1")
	mk("lib/b.go", "package lib")
	mk("pkg/own.txt", "x")
	link("../data/a.txt", "pkg/a.txt")
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // past a tick of the file clock
	since := time.Now()
	time.Sleep(20 * time.Millisecond)
	mk("data/a.txt", "v2") // the target, outside the scope, changes

	tests := []struct {
		name     string
		scope    []string
		extra    func()
		changed  []string
		complete bool
	}{
		{"target outside the scope changed", []string{"pkg/*"}, nil, []string{"pkg/a.txt"}, true},
		{"target also in the scope", []string{"**"}, nil, []string{"data/a.txt", "pkg/a.txt"}, true},
		{"target outside the root", []string{"pkg/*"}, func() { link(outside, "pkg/out.txt") }, nil, false},
		{"dangling", []string{"pkg/*"}, func() { link("../data/none.txt", "pkg/none.txt") }, nil, false},
		{"folder outside the scope", []string{"pkg/*"}, func() { link("../lib", "pkg/lib") }, nil, false},
		{"folder the walk reads anyway", []string{"**"}, func() { link("../lib", "pkg/lib") }, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, l := range []string{"pkg/out.txt", "pkg/none.txt", "pkg/lib"} {
				os.Remove(filepath.Join(root, l))
			}
			if tt.extra != nil {
				tt.extra()
			}
			st := walkScope(root, tt.scope, since)
			var files []string
			for _, e := range st.entries {
				if !e.dir && !slices.Contains([]string{"pkg/out.txt", "pkg/none.txt", "pkg/lib"}, e.path) {
					files = append(files, e.path)
				}
			}
			slices.Sort(files)
			for _, want := range tt.changed {
				if !slices.Contains(files, want) {
					t.Errorf("changed files %q, want %s among them", files, want)
				}
			}
			if st.complete != tt.complete {
				t.Errorf("complete = %v, want %v", st.complete, tt.complete)
			}
		})
	}
}
