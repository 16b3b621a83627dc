package freshness

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestOpenersAnswerAsOSDoes: OpenFolder, OSFS.Open and OSFS.ReadDir give
// what os.Open and os.ReadDir give, errors included, and follow a link to
// a folder as they do. (That they skip the poller is what
// BenchmarkOpenRead2000 and BenchmarkWalkSmallFolders time.)
func TestOpenersAnswerAsOSDoes(t *testing.T) {
	var osfs OSFS
	dir := t.TempDir()
	file := filepath.Join(dir, "b.txt")
	for _, name := range []string{"c.txt", "b.txt", "a.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := osfs.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(got) != "b.txt" {
		t.Fatalf("read %q, %v", got, err)
	}
	list, err := osfs.ReadDir(dir)
	want, _ := os.ReadDir(dir)
	names := func(l []fs.DirEntry) []string {
		var out []string
		for _, e := range l {
			name := e.Name()
			if e.IsDir() {
				name += "/"
			}
			out = append(out, name)
		}
		return out
	}
	if err != nil || !slices.Equal(names(list), names(want)) {
		t.Fatalf("ReadDir: %q, %v; os.ReadDir: %q", names(list), err, names(want))
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if through, err := osfs.ReadDir(link); err != nil || !slices.Equal(names(through), names(want)) {
		t.Errorf("ReadDir through a link: %q, %v", names(through), err)
	}
	missing := filepath.Join(dir, "none")
	if _, err := osfs.Open(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing file: %v", err)
	}
	if _, err := OpenFolder(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenFolder of a missing folder: %v", err)
	}
	if _, err := osfs.ReadDir(file); err == nil {
		t.Error("ReadDir of a file: no error")
	}
	_, err = OpenFolder(file)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != file {
		t.Errorf("OpenFolder of a file: %v", err)
	}
}
