package testout

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGoSourceTakesNonTestGoFilesInPathOrder(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"b.go":             "package b\n",
		"a/z.go":           "package z\n",
		"a/z_test.go":      "package z // test\n",
		"a/notes.md":       "# notes\n",
		"c/testdata/in.go": "package in\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := GoSource(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := "package z\npackage b\npackage in\n"; string(got) != want {
		t.Fatalf("GoSource = %q, want %q", got, want)
	}
}

func TestGoSourceRefusesAFolderWithoutGoSource(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := GoSource(dir); err == nil {
		t.Fatal("GoSource of a folder with only a test file gave no error")
	}
	if _, err := GoSource(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("GoSource of a missing folder gave no error")
	}
}
