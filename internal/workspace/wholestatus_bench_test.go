package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testbench"
	"github.com/freshctx/freshctx/internal/testgit"
)

// BenchmarkWholeStatusSplit times the whole-tree status asked as one git
// and as two at once (split), in turn, in repositories of 66, 3,000 and
// 13,000 files (the last not with -short) laid out as a real repository's
// are, five files a folder. It reports each median and split_x_one, the
// ratio; below splitFrom entries planWhole asks one git. This is git alone:
// in a run the two gits also share the cores with freshctx and the command.
func BenchmarkWholeStatusSplit(b *testing.B) {
	sizes := []int{66, 3000, 13000}
	if testing.Short() {
		sizes = sizes[:2]
	}
	ctx := context.Background()
	for _, n := range sizes {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			g := newGit(statusBenchRepo(b, n), "")
			ask := func(w wholeRun) time.Duration {
				start := time.Now()
				if _, err := w.run(ctx, g); err != nil {
					b.Fatal(err)
				}
				return time.Since(start)
			}
			ask(g.oneStatus())
			ask(g.splitStatus())
			var one, split []time.Duration
			for b.Loop() {
				one = append(one, ask(g.oneStatus()))
				split = append(split, ask(g.splitStatus()))
			}
			testbench.MedianMS(b, one, "one_ms")
			testbench.MedianMS(b, split, "split_ms")
			testbench.Ratio(b, split, one, "split_x_one")
			planned := 0.0
			if g.planWhole().others != nil {
				planned = 1
			}
			b.ReportMetric(planned, "splits")
		})
	}
}

// statusBenchRepo makes a committed repository of n files, five a folder
// in folders three deep, with times an hour old so that no status finds an
// entry racily clean and reads its bytes.
func statusBenchRepo(b *testing.B, n int) string {
	r := testgit.New(b)
	old := time.Now().Add(-time.Hour)
	for i := range n {
		f := i / 5
		p := filepath.Join(r.Dir, fmt.Sprintf("p%d/q%d/r%d/f%d.go", f/200, f/14%14, f%14, i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "package r\n// %d\n", i), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			b.Fatal(err)
		}
	}
	r.Git("add", "-A")
	r.Commit("files")
	r.Write("untracked/new.go", "package u\n")
	return r.Dir
}

// BenchmarkTreeEntries reads the entries of 40 and of 200 paths spread over
// repositories of 10,000 and 100,000 files (the first alone with -short)
// from HEAD's tree with git ls-tree, as a registry verify reads its
// unstaged candidates', and in turn from the index as Index does past
// maxPathspecs paths: the whole index listed, the paths picked out.
// x_index is the ratio; taken says whether TreeEntries takes that many
// paths in that index (treePaths).
func BenchmarkTreeEntries(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	ctx := context.Background()
	for _, n := range sizes {
		g := newGit(statusBenchRepo(b, n), "")
		head, err := g.ResolveCommit(ctx, "HEAD")
		if err != nil {
			b.Fatal(err)
		}
		for _, k := range []int{40, 200} {
			b.Run(fmt.Sprintf("files=%d/paths=%d", n, k), func(b *testing.B) {
				paths := make([]string, k)
				for i := range paths {
					j := i * (n / k)
					f := j / 5
					paths[i] = fmt.Sprintf("p%d/q%d/r%d/f%d.go", f/200, f/14%14, f%14, j)
				}
				var tree, index []time.Duration
				for b.Loop() {
					start := time.Now()
					got, err := g.treeEntries(ctx, head, paths)
					tree = append(tree, time.Since(start))
					if err != nil || len(got) != k {
						b.Fatalf("ls-tree: %d of %d, %v", len(got), k, err)
					}
					start = time.Now()
					all, err := g.Index(ctx, paths)
					index = append(index, time.Since(start))
					if err != nil || len(all) != k {
						b.Fatalf("Index: %d of %d, %v", len(all), k, err)
					}
				}
				testbench.MedianMS(b, tree, "tree_ms")
				testbench.MedianMS(b, index, "index_ms")
				testbench.Ratio(b, index, tree, "x_index")
				taken := 0.0
				if k <= g.treePaths() {
					taken = 1
				}
				b.ReportMetric(taken, "taken")
			})
		}
	}
}

// BenchmarkStagedChanges answers "what is staged" in repositories of 10,000
// and 100,000 files (the first alone with -short) where nothing is: from
// the index's cached tree and one git rev-parse (StagedChanges, cached_ms),
// and in turn from git diff-index, which reads the whole index and HEAD's
// whole tree (diff_index_ms); x_diff_index is the ratio.
func BenchmarkStagedChanges(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	ctx := context.Background()
	for _, n := range sizes {
		g := newGit(statusBenchRepo(b, n), "")
		if !g.indexIsHead(ctx) {
			b.Fatal("the index's cached tree does not answer")
		}
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			var cached, byGit []time.Duration
			for b.Loop() {
				start := time.Now()
				got, err := g.StagedChanges(ctx)
				cached = append(cached, time.Since(start))
				if err != nil || len(got) != 0 {
					b.Fatalf("StagedChanges: %v, %v", got, err)
				}
				start = time.Now()
				got, err = g.stagedByGit(ctx)
				byGit = append(byGit, time.Since(start))
				if err != nil || len(got) != 0 {
					b.Fatalf("git diff-index: %v, %v", got, err)
				}
			}
			testbench.MedianMS(b, cached, "cached_ms")
			testbench.MedianMS(b, byGit, "diff_index_ms")
			testbench.Ratio(b, byGit, cached, "x_diff_index")
		})
	}
}
