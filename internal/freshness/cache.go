package freshness

import (
	"context"
	"time"

	"github.com/freshctx/freshctx/internal/digest"
)

// RacyWindow is how close to its recording time a file's mtime may be before
// the cache entry is distrusted. Two seconds covers filesystems with
// one-second (and FAT's two-second) timestamps, as gopls does.
const RacyWindow = 2 * time.Second

// CacheEntry is the digest of a file as it was when stat said Info.
type CacheEntry struct {
	Info     FileInfo
	Digest   digest.Digest
	Recorded int64 // unix ns when the file was hashed
}

// Trusted reports whether the entry's digest may stand for a file whose stat
// now reads cur: the stat must be identical and the file must have been
// modified well before it was hashed — otherwise a later write within the
// same timestamp tick could have left the stat unchanged.
func (e CacheEntry) Trusted(cur FileInfo) bool {
	return e.Info == cur && e.Info.ModTime < e.Recorded-RacyWindow.Nanoseconds() &&
		(e.Info.Ctime == 0 || e.Info.Ctime < e.Recorded-RacyWindow.Nanoseconds())
}

// StatCache persists cache entries per workspace root.
type StatCache interface {
	Load(ctx context.Context, root string, paths []string) (map[string]CacheEntry, error)
	Save(ctx context.Context, root string, entries map[string]CacheEntry) error
}

// MemCache is a StatCache in memory, for tests and one-shot use.
type MemCache struct {
	m map[string]CacheEntry
}

// Load implements StatCache.
func (c *MemCache) Load(_ context.Context, root string, paths []string) (map[string]CacheEntry, error) {
	out := map[string]CacheEntry{}
	for _, p := range paths {
		if e, ok := c.m[root+"\x00"+p]; ok {
			out[p] = e
		}
	}
	return out, nil
}

// Save implements StatCache.
func (c *MemCache) Save(_ context.Context, root string, entries map[string]CacheEntry) error {
	if c.m == nil {
		c.m = map[string]CacheEntry{}
	}
	for p, e := range entries {
		c.m[root+"\x00"+p] = e
	}
	return nil
}
