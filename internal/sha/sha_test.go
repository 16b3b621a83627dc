package sha

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testbench"
	"github.com/freshctx/freshctx/internal/testrace"
)

func TestRoundTrip(t *testing.T) {
	d := Bytes([]byte("hello"))
	const want = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
	if d.String() != want {
		t.Fatalf("String = %s", d)
	}
	p, err := Parse(want)
	if err != nil || p != d {
		t.Fatalf("Parse = %v, %v", p, err)
	}
	r, n, err := Reader(strings.NewReader("hello"))
	if err != nil || r != d || n != 5 {
		t.Fatalf("Reader = %v %d %v", r, n, err)
	}
	if z, err := Parse(""); err != nil || !z.IsZero() || z.String() != "" {
		t.Fatalf("zero sum: %v %v", z, err)
	}
	for _, bad := range []string{"xyz", strings.Repeat("g", 64)} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = nil error", bad)
		}
	}
}

// List moves with every item, their order and where one ends.
func TestList(t *testing.T) {
	base := List([]string{"a", "b"})
	for _, other := range [][]string{{"b", "a"}, {"ab"}, {"a", "b", ""}, {"a"}, {"a", "c"}, nil} {
		if List(other) == base {
			t.Errorf("List(%q) equals List([a b])", other)
		}
	}
	if List([]string{"a", "b"}) != base {
		t.Error("the same list digests apart")
	}
}

// Reader sums files of every size about its buffer's as sha256 does, read
// from a file and through io.MultiReader (both have a WriteTo that
// io.Copy would call with a buffer of its own).
func TestReaderSumsFiles(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 32<<10 - 1, 32 << 10, 32<<10 + 1, 100_000} {
		data := bytes.Repeat([]byte("freshctx"), size/8+1)[:size]
		path := filepath.Join(dir, fmt.Sprint(size))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want := Sum(sha256.Sum256(data))
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got, n, err := Reader(f)
		f.Close()
		if err != nil || got != want || n != int64(size) {
			t.Errorf("file of %d bytes: %v %d %v, want %v", size, got, n, err, want)
		}
		head := min(size, 512)
		got, n, err = Reader(io.MultiReader(bytes.NewReader(data[:head]), bytes.NewReader(data[head:])))
		if err != nil || got != want || n != int64(size) {
			t.Errorf("%d bytes in two readers: %v %d %v, want %v", size, got, n, err, want)
		}
	}
}

// A small file's sum allocates a few hundred bytes, not a read buffer a
// call: a check may hash thousands of files.
func TestReaderKeepsItsBuffer(t *testing.T) {
	if testrace.Enabled {
		t.Skip("under -race sync.Pool drops a quarter of what it is given")
	}
	path := filepath.Join(t.TempDir(), "small.go")
	if err := os.WriteFile(path, []byte("package small\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum := func() {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Reader(f); err != nil {
			t.Fatal(err)
		}
	}
	sum() // the pool's first buffer
	const calls = 200
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range calls {
		sum()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / calls; per > 4<<10 {
		t.Errorf("Reader of a 14-byte file allocates %d bytes a call", per)
	}
}

// BenchmarkReaderSmallFile sums a 14-byte file, as a check of a source
// tree's files does thousands of times, by Reader and, in turn, by
// io.Copy into the hash (what Reader did before): us a sum each, and
// x_copy, the ratio.
func BenchmarkReaderSmallFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "small.go")
	if err := os.WriteFile(path, []byte("package small\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	timed := func(sum func(f *os.File) error) time.Duration {
		start := time.Now()
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := sum(f); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var reader, copied []time.Duration
	for b.Loop() {
		reader = append(reader, timed(func(f *os.File) error { _, _, err := Reader(f); return err }))
		copied = append(copied, timed(func(f *os.File) error { _, err := io.Copy(sha256.New(), f); return err }))
	}
	b.ReportMetric(float64(testbench.Median(reader).Nanoseconds())/1e3, "reader_us")
	b.ReportMetric(float64(testbench.Median(copied).Nanoseconds())/1e3, "copy_us")
	testbench.Ratio(b, copied, reader, "x_copy")
}
