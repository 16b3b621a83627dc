package freshness

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/sha"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testfs"
	"github.com/freshctx/freshctx/internal/teststore"
)

// TestSaveInChunksKeepsEveryEntry: a save larger than a transaction's
// share (saveChunk) is written in several and loads back whole, each
// entry as it was given.
func TestSaveInChunksKeepsEveryEntry(t *testing.T) {
	c := StoreCache{S: teststore.Open(t, "", store.Options{})}
	dir := t.TempDir()
	fp, err := FingerprintFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 2*saveChunk + 345
	entries := make(map[string]CacheEntry, n)
	var paths []string
	for i := range n {
		p := filepath.Join("d", fmt.Sprintf("f%05d.go", i))
		paths = append(paths, p)
		entries[p] = CacheEntry{FP: fp, Digest: sha.Bytes([]byte(p)), Recorded: int64(i + 1)}
	}
	ctx := context.Background()
	if err := c.Save(ctx, dir, entries); err != nil {
		t.Fatal(err)
	}
	got, err := c.Load(ctx, dir, paths)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("loaded %d entries, want %d", len(got), n)
	}
	for p, want := range entries {
		if e := got[p]; e.Digest != want.Digest || e.Recorded != want.Recorded || e.FP.String() != want.FP.String() {
			t.Fatalf("%s: loaded %+v, want %+v", p, e, want)
		}
	}
}

// TestSaveOnAFullDisk: a save the disk has no room for is no error (an
// entry only spares a later hash), and what it kept, if anything, is as
// it was given. (A store opened for reading only keeps nothing and says
// nothing: records' TestCheckInAStoreThatCannotBeWritten.)
func TestSaveOnAFullDisk(t *testing.T) {
	ctx := context.Background()
	dir := testfs.Tmpfs(t, "2m")
	p := filepath.Join(dir, "freshctx.db")
	c := StoreCache{S: teststore.Open(t, p, store.Options{})}
	fp, err := FingerprintFile(p)
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]CacheEntry{}
	var paths []string
	for i := range 3000 { // more than a full disk's last pages hold
		q := fmt.Sprintf("d/f%05d-%s.go", i, strings.Repeat("x", 200))
		paths = append(paths, q)
		entries[q] = CacheEntry{FP: fp, Digest: sha.Bytes([]byte(q)), Recorded: int64(i + 1)}
	}
	testfs.Fill(t, dir)
	if err := c.save(ctx, dir, entries, paths); !errors.Is(err, store.ErrFull) {
		t.Fatalf("a transaction of the entries on a full disk = %v, want ErrFull", err)
	}
	if err := c.Save(ctx, dir, entries); err != nil {
		t.Fatalf("Save on a full disk = %v, want no error", err)
	}
	got, err := c.Load(ctx, dir, paths)
	if err != nil {
		t.Fatal(err)
	}
	for q, e := range got {
		if want := entries[q]; e.Digest != want.Digest || e.Recorded != want.Recorded {
			t.Fatalf("%s: loaded %+v, want %+v", q, e, want)
		}
	}
}
