package readcache

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/workspace"
)

// FuzzParseTarget: any PATH[:N-M] either is refused or names a path inside
// the root with a well-formed range.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"a.go", "a.go:3", "a.go:3-9", "a.go:9-3", "../x", "/etc/passwd:1", "dir/../../x:2-", "a:b:1-2", ":1"} {
		f.Add(s)
	}
	root := f.TempDir()
	ws, err := workspace.Open(root)
	if err != nil {
		f.Fatal(err)
	}
	s := &Service{WS: ws, Cwd: root}
	f.Fuzz(func(t *testing.T, spec string) {
		rel, r, err := s.parseTarget(spec)
		if err != nil {
			return
		}
		if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) || path.Clean(rel) != rel {
			t.Fatalf("%q gave %q, outside the root or not clean", spec, rel)
		}
		if r.start < 0 || r.end < 0 || (r.start == 0 && r.end != 0) || (r.end != 0 && r.end < r.start) {
			t.Fatalf("%q gave range %+v", spec, r)
		}
	})
}

func TestParseTargetRefusesHalfRanges(t *testing.T) {
	root := t.TempDir()
	ws, err := workspace.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	s := &Service{WS: ws, Cwd: root}
	for _, spec := range []string{"a.go:3-", "a.go:2-x", "a.go:2-3x"} {
		if _, _, err := s.parseTarget(spec); err == nil || !strings.Contains(err.Error(), "want PATH:N-M") {
			t.Errorf("parseTarget(%q) = %v, want the range refused", spec, err)
		}
	}
	for spec, want := range map[string]lineRange{"a.go:3": {3, 0}, "a.go:3-9": {3, 9}, "a.go": {}} {
		if _, r, err := s.parseTarget(spec); err != nil || r != want {
			t.Errorf("parseTarget(%q) = %+v, %v; want %+v", spec, r, err, want)
		}
	}
}

// A file whose name looks like a range is read whole when the path before
// the colon names nothing; when both exist, the range is meant.
func TestParseTargetTakesAFileNamedLikeARange(t *testing.T) {
	root := t.TempDir()
	ws, err := workspace.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"v:1-2", "both", "both:3"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := &Service{WS: ws, Cwd: root}
	for spec, want := range map[string]struct {
		rel string
		r   lineRange
	}{
		"v:1-2":  {"v:1-2", lineRange{}},
		"both:3": {"both", lineRange{3, 0}},
		"none:4": {"none", lineRange{4, 0}},
	} {
		rel, r, err := s.parseTarget(spec)
		if err != nil || rel != want.rel || r != want.r {
			t.Errorf("parseTarget(%q) = %q %+v, %v; want %q %+v", spec, rel, r, err, want.rel, want.r)
		}
	}
}
