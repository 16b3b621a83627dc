package freshness

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// FingerprintMany fingerprints root-relative paths into out and errs (of
// the same length), as Fingerprint does one by one but faster for many
// paths in few directories. Safe to call from several goroutines.
func (s *Snapshot) FingerprintMany(rels []string, out []Fingerprint, errs []error) {
	if _, ok := s.opt.FS.(OSFS); !ok || s.rootSlash == "" {
		s.fingerprintEach(rels, out, errs)
		return
	}
	fingerprintBatch(s.rootSlash, rels, out, errs)
}

func (s *Snapshot) fingerprintEach(rels []string, out []Fingerprint, errs []error) {
	for i, rel := range rels {
		out[i], errs[i] = s.Fingerprint(rel)
	}
}

// FingerprintPaths fingerprints the clean, root-relative paths rels (sorted,
// for speed) as a snapshot of root would one by one, but each directory's
// files relative to it and a long list split between the CPUs. The results
// are in the order of rels.
func FingerprintPaths(root string, rels []string) ([]Fingerprint, []error) {
	out, errs := make([]Fingerprint, len(rels)), make([]error, len(rels))
	rootSlash := strings.TrimSuffix(root, "/") + "/"
	inParts(len(rels), func(lo, hi int) { fingerprintBatch(rootSlash, rels[lo:hi], out[lo:hi], errs[lo:hi]) })
	return out, errs
}

// PresentPaths says which of the clean, root-relative paths rels (sorted,
// for speed) are in the work tree under root, as lstat finds them (a
// dangling symlink is there), going about it as FingerprintPaths does. It
// stops early, with ctx's error, once ctx is done.
func PresentPaths(ctx context.Context, root string, rels []string) ([]bool, error) {
	out := make([]bool, len(rels))
	rootSlash := strings.TrimSuffix(root, "/") + "/"
	inParts(len(rels), func(lo, hi int) {
		for ; lo < hi && ctx.Err() == nil; lo += presentChunk {
			end := min(hi, lo+presentChunk)
			presentBatch(rootSlash, rels[lo:end], out[lo:end])
		}
	})
	return out, ctx.Err()
}

// presentChunk is how many paths PresentPaths looks at between two looks
// at its context.
const presentChunk = 1024

// partShare is the fewest paths a goroutine of a batch takes.
const partShare = 256

// inParts calls do on consecutive ranges of [0, n), side by side, one per
// CPU while each gets partShare or more.
func inParts(n int, do func(lo, hi int)) {
	parts := max(1, min(runtime.GOMAXPROCS(0), n/partShare))
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*n/parts, (p+1)*n/parts
		wg.Go(func() { do(lo, hi) })
	}
	wg.Wait()
}

// sortedUnique returns rels sorted, without duplicates, in a new slice.
func sortedUnique(rels []string) []string {
	rels = slices.Clone(rels)
	slices.Sort(rels)
	return slices.Compact(rels)
}

// pathErr is a not-found error for a path the batch could not reach.
type pathErr struct {
	rel string
	err error
}

func (e *pathErr) Error() string { return "lstat " + e.rel + ": " + e.err.Error() }
func (e *pathErr) Unwrap() error { return e.err }

// FingerprintFile fingerprints one absolute path, inside the root or not.
func FingerprintFile(abs string) (Fingerprint, error) { return fingerprint(OSFS{}, abs) }
