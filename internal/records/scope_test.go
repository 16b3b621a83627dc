package records

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
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
