package workspace

import (
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRel: no path a user types normalises to one outside the root.
func FuzzRel(f *testing.F) {
	for _, s := range []string{"a", "./a/../b", "../x", "/etc/passwd", "a/../../b", "..", ".", "//a//b/", "a\\..\\..\\b"} {
		f.Add(s, "")
	}
	root := f.TempDir()
	w, err := Open(root)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, p, sub string) {
		cwd := filepath.Join(root, sub)
		if _, ok := within(w.Root, filepath.Clean(cwd)); !ok {
			return // the caller stands outside the root
		}
		rel, err := w.Rel(p, cwd)
		if err != nil {
			return
		}
		if escapes(rel) {
			t.Fatalf("Rel(%q, %q) = %q", p, sub, rel)
		}
		if _, ok := within(w.Root, w.Abs(rel)); !ok {
			t.Fatalf("Rel(%q, %q) = %q, which leaves the root", p, sub, rel)
		}
	})
}

// FuzzClean: a stored path is either refused or stays under the root.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"a", "../x", "/abs", "a/../..", "a/./b//c", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		c, err := Clean(p)
		if err == nil && escapes(c) {
			t.Fatalf("Clean(%q) = %q", p, c)
		}
	})
}

func escapes(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) || filepath.IsAbs(rel)
}
