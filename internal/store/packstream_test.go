package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
)

// streamValue is n lines of a value with little to compress, longer than
// StreamWindow when n is large.
func streamValue(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "src/pkg%03d/file%06d.go %x\n", i%997, i, uint64(i)*0x9e3779b97f4a7c15)
	}
	return b.Bytes()
}

// TestPackStreamReadsWhatWasPacked: a value packed for a stream reads back
// whole through reads of every size, and its frame keeps to StreamWindow.
func TestPackStreamReadsWhatWasPacked(t *testing.T) {
	for _, n := range []int{0, 1, 100, 20000} {
		want := streamValue(n)
		data := PackForStream(want)
		if !narrowWindow(data) {
			t.Fatalf("%d lines: packed with a window wider than %d", n, StreamWindow)
		}
		for _, size := range []int{1, 7, 4096, 1 << 20} {
			r, err := OpenPackStream(data)
			if err != nil {
				t.Fatalf("%d lines: open: %v", n, err)
			}
			got, err := io.ReadAll(io.LimitReader(readIn(r, size), int64(len(want))+1))
			r.Close()
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%d lines in reads of %d: %d bytes, %v; want the %d packed", n, size, len(got), err, len(want))
			}
		}
	}
}

// TestPackStreamRefusesWhatItCannotStream: a value Pack wrote (its window
// the whole value), bytes that are not zstd, and a bare header are
// ErrWideWindow at open; a value cut short or with a wrong checksum is
// ErrCorrupt by the last read, never a quiet end.
func TestPackStreamRefusesWhatItCannotStream(t *testing.T) {
	value := streamValue(20000)
	for name, data := range map[string][]byte{
		"packed whole":  Pack(value),
		"not zstd":      []byte("path fp at watched"),
		"a bare header": PackForStream(value)[:4],
	} {
		if _, err := OpenPackStream(data); !errors.Is(err, ErrWideWindow) {
			t.Errorf("%s: open said %v, want ErrWideWindow", name, err)
		}
	}
	good := PackForStream(value)
	badSum := bytes.Clone(good)
	badSum[len(badSum)-1] ^= 0xff
	for name, data := range map[string][]byte{
		"cut short":        good[:len(good)/2],
		"a wrong checksum": badSum,
		"the checksum cut": good[:len(good)-2],
	} {
		r, err := OpenPackStream(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s: open said %v, want ErrCorrupt", name, err)
			}
			continue
		}
		_, err = io.ReadAll(r)
		r.Close()
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: read to its end said %v, want ErrCorrupt", name, err)
		}
	}
}

// TestPackStreamCloses: Close may be called again, and a read after it is
// an error, not a read of a decoder given back.
func TestPackStreamCloses(t *testing.T) {
	r, err := OpenPackStream(PackForStream(streamValue(10)))
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	r.Close()
	if _, err := r.Read(make([]byte, 8)); err == nil {
		t.Error("a read after Close gave no error")
	}
}

// readIn reads r in reads of at most size bytes.
func readIn(r io.Reader, size int) io.Reader {
	return readerFunc(func(p []byte) (int, error) { return r.Read(p[:min(len(p), size)]) })
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
