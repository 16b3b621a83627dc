package freshness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FolderEntries digests names and types: the same after a file is saved
// by renaming another over it, different when a name comes or goes or an
// entry changes its type. It refuses a folder whose fingerprint is not
// the one it was given: the entries read may not be the ones that
// fingerprint stands for.
func TestFolderEntries(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entries := func() string {
		t.Helper()
		fp, err := FingerprintFile(dir)
		if err != nil {
			t.Fatal(err)
		}
		d, err := FolderEntries(dir, fp)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	write("a.go", "package a\n")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	first := entries()

	write(".a.go.tmp", "package saved\n")
	if err := os.Rename(filepath.Join(dir, ".a.go.tmp"), filepath.Join(dir, "a.go")); err != nil {
		t.Fatal(err)
	}
	if got := entries(); got != first {
		t.Error("a file saved by rename changed the entries")
	}
	write("b.go", "")
	if got := entries(); got == first {
		t.Error("a new file left the entries as they were")
	}
	os.Remove(filepath.Join(dir, "b.go"))
	os.Remove(filepath.Join(dir, "a.go"))
	if err := os.Mkdir(filepath.Join(dir, "a.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := entries(); got == first {
		t.Error("a file turned folder left the entries as they were")
	}

	stale, err := FingerprintFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	write("c.go", "")
	if _, err := FolderEntries(dir, stale); !errors.Is(err, ErrUnsettled) {
		t.Fatalf("entries read under a fingerprint that moved: %v, want ErrUnsettled", err)
	}
}

// WalkFolders gives each folder the digest of its entries and each file
// none.
func TestWalkFoldersDigestsEntries(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a/x.go", "a/.gitignore", "b/y.go"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := FileClock().Add(time.Hour).UnixNano()
	walked, err := WalkFolders(context.Background(), root, FolderWalk{At: at, Window: time.Nanosecond,
		Files: []string{".gitignore"}, MaxDirs: 10, MaxEntries: 100})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, w := range walked {
		got[w.Rel] = w.Entries != ""
	}
	want := map[string]bool{".": true, "a": true, "b": true, "a/.gitignore": false}
	if len(got) != len(want) {
		t.Fatalf("walked %v, want %v", got, want)
	}
	for rel, folder := range want {
		if got[rel] != folder {
			t.Errorf("%s: entries digest %v, want %v", rel, got[rel], folder)
		}
	}
}
