package freshness

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/teststore"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testbench"
	"github.com/freshctx/freshctx/internal/testgit"
)

// benchRepo makes a committed repository of n files, a tenth of the
// referenced ones then edited so the check needs both tiers.
func benchRepo(b *testing.B, n, refs int) (*testgit.Repo, []string) {
	b.Helper()
	r := testgit.New(b)
	for i := range n {
		r.Write(fmt.Sprintf("pkg%03d/file%04d.go", i%100, i), fmt.Sprintf("package p\n\n// file %d\nvar X%d = %d\n", i, i, i))
	}
	r.Commit("init")
	paths := make([]string, refs)
	for i := range refs {
		j := i * (n / refs)
		paths[i] = fmt.Sprintf("pkg%03d/file%04d.go", j%100, j)
		if i%10 == 0 {
			r.Write(paths[i], "package p // edited before capture\n")
		}
	}
	return r, paths
}

// BenchmarkCheck200Of5000 checks 200 referenced files of a 5,000-file repo
// the way every command does (one snapshot with the store's stat cache), and
// reports the ratio to one `git status --porcelain=v2` of the whole repo and
// the speed-up over the seed's one `git status --porcelain -- FILE` per file,
// both measured in the same run.
func BenchmarkCheck200Of5000(b *testing.B) {
	n, refs := 5000, 200
	if testing.Short() {
		n, refs = 500, 50
	}
	r, paths := benchRepo(b, n, refs)
	ctx := context.Background()
	s := teststore.Open(b, "", store.Options{})
	ws := teststore.Workspace(b, r.Dir)
	opt := Options{Cache: StoreCache{S: s}}
	snap, err := NewSnapshot(ctx, ws, paths, opt)
	if err != nil {
		b.Fatal(err)
	}
	st, err := snap.Stamp(ctx, paths, time.Time{})
	if err != nil {
		b.Fatal(err)
	}
	snap.Flush(ctx)
	r.Write(paths[5], "package p // changed after capture\n")

	check := func() {
		snap, err := NewSnapshot(ctx, ws, paths, opt)
		if err != nil {
			b.Fatal(err)
		}
		if res, err := snap.Check(ctx, st); err != nil || res.Label != StaleChanged {
			b.Fatalf("label = %s, %v", res.Label, err)
		}
		if err := snap.Flush(ctx); err != nil {
			b.Fatal(err)
		}
	}
	gitStatus := func() { runGit(b, r.Dir, "status", "--porcelain=v2") }
	perFile := func() {
		for _, p := range paths {
			runGit(b, r.Dir, "status", "--porcelain", "--", p)
		}
	}
	check() // warm the stat cache as a second command would find it
	b.ResetTimer()
	for b.Loop() {
		check()
	}
	b.StopTimer()
	ours := median(9, check)
	status := median(9, gitStatus)
	seed := median(3, perFile)
	b.ReportMetric(float64(ours)/float64(status), "x_git_status")
	b.ReportMetric(float64(seed)/float64(ours), "speedup_vs_per_file")
	testbench.MS(b, status, "git_status_ms")
	testbench.MS(b, seed, "per_file_ms")
}

func runGit(b *testing.B, dir string, args ...string) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// median times f k times and returns the median duration.
func median(k int, f func()) time.Duration {
	ds := make([]time.Duration, k)
	for i := range ds {
		start := time.Now()
		f()
		ds[i] = time.Since(start)
	}
	slices.Sort(ds)
	return ds[k/2]
}

// BenchmarkCheckMany2000 checks 2,000 stamps of one file each (200 with
// -short), all unchanged and settled, in one snapshot: an artifact's
// slices, each with its input, as a get checks them.
func BenchmarkCheckMany2000(b *testing.B) {
	n := 2000
	if testing.Short() {
		n = 200
	}
	r := testgit.New(b)
	var paths []string
	for i := range n {
		p := fmt.Sprintf("pkg%02d/f%04d.go", i%40, i)
		r.Write(p, fmt.Sprintf("package p // %d\n", i))
		paths = append(paths, p)
	}
	r.Commit("init")
	ctx := context.Background()
	ws := teststore.Workspace(b, r.Dir)
	opt := Options{Cache: StoreCache{S: teststore.Open(b, "", store.Options{})}}
	time.Sleep(RacyWindow + 100*time.Millisecond) // settled: the fingerprints decide
	snap, err := NewSnapshot(ctx, ws, paths, opt)
	if err != nil {
		b.Fatal(err)
	}
	sts := make([]Stamp, n)
	for i, p := range paths {
		if sts[i], err = snap.Stamp(ctx, []string{p}, time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
	if err := snap.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	time.Sleep(RacyWindow + 100*time.Millisecond)
	for b.Loop() {
		snap, err := NewSnapshot(ctx, ws, nil, opt)
		if err != nil {
			b.Fatal(err)
		}
		res, err := snap.CheckMany(ctx, sts)
		if err != nil {
			b.Fatal(err)
		}
		for i := range res {
			if res[i].Label != Fresh {
				b.Fatalf("%s: %s, want fresh", paths[i], res[i].Label)
			}
		}
	}
}

// BenchmarkOpenRead2000 reads 2,000 small files whole as a hash does,
// opened through OSFS (one fcntl, no poller) and, in turn, through os.Open
// (four fcntl and an epoll_ctl more each). x_os_open is the ratio.
func BenchmarkOpenRead2000(b *testing.B) {
	dir := b.TempDir()
	names := make([]string, 2000)
	for i := range names {
		names[i] = filepath.Join(dir, fmt.Sprintf("f%04d.go", i))
		if err := os.WriteFile(names[i], fmt.Appendf(nil, "package p\n// %d\n", i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	readAll := func(open func(string) (io.ReadCloser, error)) time.Duration {
		start := time.Now()
		for _, n := range names {
			f, err := open(n)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, f); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
		return time.Since(start)
	}
	viaOpen := func(name string) (io.ReadCloser, error) { return os.Open(name) }
	var ours, open []time.Duration
	for b.Loop() {
		ours = append(ours, readAll(OSFS{}.Open))
		open = append(open, readAll(viaOpen))
	}
	testbench.MedianMS(b, ours, "osfs_ms")
	testbench.MedianMS(b, open, "os_open_ms")
	testbench.Ratio(b, open, ours, "x_os_open")
}
