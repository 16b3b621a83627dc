package readcache

import (
	"path"
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
