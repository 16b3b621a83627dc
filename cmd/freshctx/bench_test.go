package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testgit"
)

// BenchmarkRunTrueOverhead times `freshctx run -- true` in a small git
// repository against plain `true` in the same run and reports what freshctx
// adds, in milliseconds (median of the runs).
func BenchmarkRunTrueOverhead(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "freshctx")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	r := testgit.New(b)
	for _, f := range []string{"a.go", "b.go", "c/d.go"} {
		r.Write(f, "package x\n")
	}
	r.Commit("init")
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true(1)")
	}
	timeIt := func(name string, args ...string) time.Duration {
		cmd := exec.Command(name, args...)
		cmd.Dir = r.Dir
		cmd.Env = os.Environ()
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		return time.Since(start)
	}
	timeIt(bin, "run", "--", "true") // create the store
	var ours, base []time.Duration
	for b.Loop() {
		ours = append(ours, timeIt(bin, "run", "--", "true"))
		base = append(base, timeIt(truePath))
	}
	over := medianOf(ours) - medianOf(base)
	b.ReportMetric(float64(over.Microseconds())/1000, "overhead_ms")
	b.ReportMetric(float64(medianOf(base).Microseconds())/1000, "true_ms")
}

func medianOf(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
