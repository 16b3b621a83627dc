package freshness

import (
	"os"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/store"
)

func TestStampsPackRoundTrip(t *testing.T) {
	link := FileInfo{Dev: 1, Inode: 2, Size: 9, ModTime: 3, Ctime: 4, Mode: os.ModeSymlink | 0o777}
	file := FileInfo{Dev: 1, Inode: 5, Size: 42, ModTime: -6, Ctime: 7, Mode: 0o644}
	cases := map[string][]FileStamp{
		"none": {},
		"every field": {
			{Path: "src/é.go", Existed: true, Size: 42, ModTime: 8, Digest: [32]byte{1, 2, 3},
				FP: Fingerprint{File: file, Link: link, Target: "../else where"}, Notes: NoteUnsettled | NoteOutsideRoot},
			{Path: "gone.go"},
			{Path: "dir", Existed: true, IsDir: true, FP: Fingerprint{File: FileInfo{Mode: os.ModeDir | 0o755}}},
			{Path: "src/é.go", Existed: true}, // a path again is interned
		},
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := UnpackStamps(PackStamps(in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(out, in) {
				t.Fatalf("read back\n%+v\nwant\n%+v", out, in)
			}
		})
	}
	rapid.Check(t, func(t *rapid.T) {
		info := func(label string) FileInfo {
			return FileInfo{Dev: rapid.Uint64().Draw(t, label+"dev"), Inode: rapid.Uint64().Draw(t, label+"ino"),
				Size: rapid.Int64().Draw(t, label+"size"), ModTime: rapid.Int64().Draw(t, label+"mtime"),
				Ctime: rapid.Int64().Draw(t, label+"ctime"), Mode: os.FileMode(rapid.Uint32().Draw(t, label+"mode"))}
		}
		in := make([]FileStamp, rapid.IntRange(0, 20).Draw(t, "n"))
		for i := range in {
			f := &in[i]
			f.Path = rapid.StringMatching(`[a-z/é ]{0,12}`).Draw(t, "path")
			f.Existed, f.IsDir = rapid.Bool().Draw(t, "existed"), rapid.Bool().Draw(t, "dir")
			f.Size, f.ModTime = rapid.Int64().Draw(t, "size"), rapid.Int64().Draw(t, "mtime")
			copy(f.Digest[:], rapid.SliceOfN(rapid.Byte(), 32, 32).Draw(t, "digest"))
			f.FP = Fingerprint{File: info("file"), Link: info("link"), Target: rapid.String().Draw(t, "target")}
			f.Notes = Note(rapid.Uint8().Draw(t, "notes"))
		}
		if out, err := UnpackStamps(PackStamps(in)); err != nil || !reflect.DeepEqual(out, in) {
			t.Fatalf("read back %+v, %v", out, err)
		}
	})
}

func TestStampsPackMalformedIsAnError(t *testing.T) {
	var w store.PackWriter
	w.Uint(2)
	WriteStamp(&w, FileStamp{Path: "a.go", Existed: true, Digest: [32]byte{9}})
	WriteStamp(&w, FileStamp{Path: "b.go"})
	good := w.B
	for i := range good {
		if _, err := UnpackStamps(store.Pack(good[:i])); err == nil {
			t.Fatalf("stamps cut to %d of %d bytes read without an error", i, len(good))
		}
	}
	if _, err := UnpackStamps(store.Pack(append(good, 0))); err == nil {
		t.Fatal("stamps with a byte after their end read without an error")
	}
	if _, err := UnpackStamps([]byte("not zstd")); err == nil {
		t.Fatal("stamps not compressed read without an error")
	}
}

// FuzzUnpackStamps: stored bytes that are not stamps are an error, never a
// panic, and what reads writes back the same (the bytes after
// decompression: the compression is zstd's to check).
func FuzzUnpackStamps(f *testing.F) {
	f.Add(writeStamps([]FileStamp{{Path: "a.go", Existed: true, Size: 3, FP: Fingerprint{Target: "b"}}, {Path: "a.go"}}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		files, err := readStamps(b)
		if err != nil {
			return
		}
		again, err := UnpackStamps(PackStamps(files))
		if err != nil || !reflect.DeepEqual(again, files) {
			t.Fatalf("rewritten stamps read as %+v, %v; want %+v", again, err, files)
		}
	})
}
