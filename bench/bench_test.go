package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseBench(t *testing.T) {
	out := []byte(`goos: linux
BenchmarkRecall-2   	       1	123 ns/op	        9.5 p50_ms_10k	        21.1 p50_ms_100k
BenchmarkRecall-2   	       1	456 ns/op	        8.5 p50_ms_10k	        23.0 p50_ms_100k
BenchmarkRedact/go-test-v-2   	3	100 ns/op	 153.81 MB/s	        12.35 x_split
PASS
ok  	github.com/freshctx/freshctx/internal/records	1.2s
`)
	got := parseBench(out)
	want := map[string]string{
		"BenchmarkRecall p50_ms_10k":        "9.5 (8.5–9.5)",
		"BenchmarkRecall p50_ms_100k":       "23 (21.1–23)",
		"BenchmarkRedact/go-test-v MB/s":    "153.8",
		"BenchmarkRedact/go-test-v x_split": "12.35",
	}
	if len(got) != len(want) {
		t.Fatalf("parsed %d metrics, want %d: %+v", len(got), len(want), got)
	}
	for _, m := range got {
		if w := want[m.bench+" "+m.unit]; m.spread() != w {
			t.Errorf("%s %s = %q, want %q", m.bench, m.unit, m.spread(), w)
		}
	}
}

func TestSampleFigures(t *testing.T) {
	s := sample{30 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond}
	if got := spread(s); got != "20.0 ms (10.0–30.0 ms)" {
		t.Errorf("spread = %q", got)
	}
	if got := ratio(s, sample{10 * time.Millisecond}); got != "2.00x" {
		t.Errorf("ratio = %q", got)
	}
	if got := ratio(sample{43 * time.Millisecond}, sample{9494 * time.Millisecond}); got != "0.0045x" {
		t.Errorf("a small ratio = %q, want two significant digits", got)
	}
	if got := rate(20e6, s); got != "1000 MB/s (667–2000)" {
		t.Errorf("rate = %q", got)
	}
}

// TestMakeRepo builds a small history the way the report builds a long one.
func TestMakeRepo(t *testing.T) {
	b := &bench{tmp: t.TempDir()}
	dir := filepath.Join(b.tmp, "repo")
	if err := b.makeRepo(context.Background(), dir, 25, 40); err != nil {
		t.Fatal(err)
	}
	count := func(args ...string) int {
		out, err := b.must(context.Background(), dir, "git", args...)
		if err != nil {
			t.Fatal(err)
		}
		return len(strings.Fields(string(out)))
	}
	if n := count("rev-list", "HEAD"); n != 40 {
		t.Errorf("%d commits, want 40", n)
	}
	if n := count("ls-files"); n != 25 {
		t.Errorf("%d files, want 25", n)
	}
	if out, _ := b.must(context.Background(), dir, "git", "status", "--porcelain"); len(out) != 0 {
		t.Errorf("the work tree is not clean: %s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, repoPath(24))); err != nil {
		t.Error(err)
	}
}
