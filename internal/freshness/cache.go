package freshness

import (
	"context"
	"time"

	"github.com/freshctx/freshctx/internal/sha"
)

// RacyWindow is how close to its recording time a file's mtime or ctime may
// be before a fingerprint taken then is distrusted. Two seconds covers file
// systems with one-second (and FAT's two-second) timestamps and the coarse
// clock tick of nanosecond ones, as gopls does.
const RacyWindow = 2 * time.Second

// CacheEntry is the digest of a file as it was when its fingerprint was FP.
type CacheEntry struct {
	FP       Fingerprint
	Digest   sha.Sum
	Recorded int64 // unix ns when the file was fingerprinted and hashed
}

// Trusted reports whether the entry's digest may stand for a path whose
// fingerprint now reads cur: the fingerprint must be identical and must
// have been settled when recorded — otherwise a later write within the same
// timestamp tick could have left it unchanged.
func (e CacheEntry) Trusted(cur Fingerprint, window time.Duration) bool {
	return !e.Digest.IsZero() && e.FP == cur && e.FP.Settled(e.Recorded, window)
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
