package freshness

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/freshctx/freshctx/internal/teststore"
)

// TestStatMatchesOS: fingerprints stored by one code path are compared with
// ones taken by another; both must read a path the same way.
func TestStatMatchesOS(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, []byte("x"), 0o640)
	os.Chmod(file, 0o640|os.ModeSetuid)
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	os.Symlink("f", filepath.Join(dir, "l"))
	for _, name := range []string{"f", "d", "l", "missing"} {
		p := filepath.Join(dir, name)
		for _, c := range []struct {
			name string
			fast func(string) (FileInfo, error)
			os   func(string) (os.FileInfo, error)
		}{{"lstat", lstat, os.Lstat}, {"stat", stat, os.Stat}} {
			got, err := c.fast(p)
			want, oerr := c.os(p)
			if (err == nil) != (oerr == nil) {
				t.Fatalf("%s %s: err %v, os %v", c.name, name, err, oerr)
			}
			if err == nil && got != fromOS(want) {
				t.Fatalf("%s %s: %+v, os %+v", c.name, name, got, fromOS(want))
			}
			if err != nil && !isNotExist(err) {
				t.Fatalf("%s %s: %v is not a not-exist error", c.name, name, err)
			}
		}
		folder, err := os.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := LstatIn(folder, name)
		folder.Close()
		want, oerr := os.Lstat(p)
		if (err == nil) != (oerr == nil) || err == nil && got != fromOS(want) || err != nil && !isNotExist(err) {
			t.Fatalf("LstatIn %s: %+v (%v), os.Lstat %+v (%v)", name, got, err, want, oerr)
		}
		if err == nil && !got.Changed().Equal(ChangeTime(want)) {
			t.Fatalf("%s changed %v, ChangeTime says %v", name, got.Changed(), ChangeTime(want))
		}
	}
}

func TestFingerprintRoundTrip(t *testing.T) {
	for _, f := range []Fingerprint{
		{},
		{File: FileInfo{Dev: 1<<63 + 5, Inode: 42, Size: 7, ModTime: -1, Ctime: 1_700_000_000_123456789, Mode: 0o644}},
		{File: FileInfo{Dev: 2, Inode: 3, Size: 4, ModTime: 5, Ctime: 6, Mode: 0o755},
			Link: FileInfo{Dev: 2, Inode: 9, Size: 9, ModTime: 5, Ctime: 6, Mode: 0o777 | fs.ModeSymlink}, Target: "../a|b:c"},
	} {
		got, err := ParseFingerprint(f.String())
		if err != nil || got != f {
			t.Fatalf("%q parsed to %+v, %v; want %+v", f.String(), got, err, f)
		}
	}
}

func TestFingerprintManyMatchesOneByOne(t *testing.T) {
	e := newEnv(t, false)
	e.r.Write("a/x.go", "x")
	e.r.Write("a/y.go", "yy")
	e.r.Write("b/z.go", "z")
	os.Symlink("../a/x.go", e.r.Path("b/link.go"))
	os.Symlink("a", e.r.Path("dirlink"))
	rels := []string{"a/x.go", "a/y.go", "a/missing.go", "b/link.go", "b/z.go", "dirlink/y.go", "nodir/f.go", "top.go"}
	s, _ := NewSnapshot(context.Background(), teststore.Workspace(t, e.r.Dir), nil, Options{})
	out, errs := make([]Fingerprint, len(rels)), make([]error, len(rels))
	s.FingerprintMany(rels, out, errs)
	for i, rel := range rels {
		want, werr := s.Fingerprint(rel)
		if out[i] != want || (errs[i] == nil) != (werr == nil) {
			t.Fatalf("%s: batch %+v %v, one by one %+v %v", rel, out[i], errs[i], want, werr)
		}
		if errs[i] != nil && !isNotExist(errs[i]) {
			t.Fatalf("%s: %v is not a not-exist error", rel, errs[i])
		}
	}
}
