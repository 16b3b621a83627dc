package freshness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/sha"
)

func TestDigestMany(t *testing.T) {
	e := newEnv(t, false)
	var paths []string
	for i := range 50 {
		p := fmt.Sprintf("d%d/f%d.txt", i%5, i)
		e.r.Write(p, fmt.Sprintf("content %d\n", i))
		paths = append(paths, p)
	}
	e.r.Write("bin.dat", "ab\x00cd")
	e.r.Write("big.txt", string(bytes.Repeat([]byte("x"), 5000)))
	paths = append(paths, "bin.dat", "big.txt", "missing.txt", "d0")
	// Hashed an hour after the files were written: entries are trusted.
	e.now = func() time.Time { return time.Now().Add(time.Hour) }
	s := e.snapshot(paths)
	var done atomic.Int64
	sniff := func(head []byte) string {
		if bytes.IndexByte(head, 0) >= 0 {
			return "binary"
		}
		return ""
	}
	got, err := s.DigestMany(context.Background(), paths, DigestOptions{MaxSize: 4096, Sniff: sniff, Done: &done})
	if err != nil {
		t.Fatal(err)
	}
	if done.Load() != int64(len(paths)) {
		t.Fatalf("done = %d", done.Load())
	}
	for i := range 50 {
		want := sha.Bytes([]byte(fmt.Sprintf("content %d\n", i)))
		if got[i].Err != nil || got[i].Digest != want || got[i].Path != paths[i] {
			t.Fatalf("file %d: %+v", i, got[i])
		}
	}
	if got[50].Tag != "binary" {
		t.Errorf("bin.dat tag = %q", got[50].Tag)
	}
	if !errors.Is(got[51].Err, ErrTooLarge) {
		t.Errorf("big.txt err = %v", got[51].Err)
	}
	if !errors.Is(got[52].Err, fs.ErrNotExist) {
		t.Errorf("missing err = %v", got[52].Err)
	}
	if got[53].Err == nil {
		t.Error("a directory has no digest")
	}
	s.Flush(context.Background())

	// A second pass reads nothing to hash: every entry is trusted (the sniff
	// still reads heads, so run it without).
	e.fs.opens.Store(0)
	s2 := e.snapshot(paths)
	if _, err := s2.DigestMany(context.Background(), paths[:50], DigestOptions{}); err != nil {
		t.Fatal(err)
	}
	if e.fs.opens.Load() != 0 {
		t.Fatalf("%d files read although the stat cache knew them", e.fs.opens.Load())
	}
}
