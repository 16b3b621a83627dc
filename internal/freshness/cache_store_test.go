package freshness

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/freshctx/freshctx/internal/sha"
	"github.com/freshctx/freshctx/internal/store"
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
