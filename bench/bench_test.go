package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
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

// TestSourceOfNamesTheCommit: the report names the commit it measured and
// says when the work tree differed from it.
func TestSourceOfNamesTheCommit(t *testing.T) {
	b := &bench{tmp: t.TempDir()}
	dir := filepath.Join(b.tmp, "repo")
	if err := b.makeRepo(context.Background(), dir, 3, 2); err != nil {
		t.Fatal(err)
	}
	out, err := b.must(context.Background(), dir, "git", "rev-parse", "--short=12", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(string(out))
	if got, want := b.sourceOf(context.Background(), dir), "commit "+head+", work tree clean"; got != want {
		t.Errorf("clean: %q, want %q", got, want)
	}
	if err := os.WriteFile(filepath.Join(dir, repoPath(0)), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := b.sourceOf(context.Background(), dir), "commit "+head+" with 2 changed or untracked paths"; got != want {
		t.Errorf("changed: %q, want %q", got, want)
	}
	if got := b.sourceOf(context.Background(), t.TempDir()); got != "" {
		t.Errorf("outside git: %q, want nothing", got)
	}
}

// TestGoalsAreComputed: a goal's "met" follows the figure the benchmarks
// printed, on either side of its threshold, and a goal whose figure the run
// did not print is left out.
func TestGoalsAreComputed(t *testing.T) {
	out := []byte(`BenchmarkConcurrentRuns-2   1   9 ns/op   266.3 p99_ms   41.2 runs/s_at_8   18.8 previous_runs/s_at_8   2.19 x_previous
BenchmarkTrace2000-2   1   9 ns/op   120 checked_answers   1 wrong_answers
`)
	b := &bench{metrics: parseBench(out)}
	b.report = newReport(b)
	b.benchGoals()
	want := map[string]bool{"at least 2x": true, "p99 of a run at most 250 ms": false, "no wrong unchanged": false}
	if len(b.report.goals) != len(want) {
		t.Fatalf("%d goals, want %d: %+v", len(b.report.goals), len(want), b.report.goals)
	}
	for _, g := range b.report.goals {
		found := false
		for part, met := range want {
			if strings.Contains(g.what, part) {
				found = true
				if g.met != met {
					t.Errorf("%q (%s): met %v, want %v", g.what, g.measured, g.met, met)
				}
			}
		}
		if !found {
			t.Errorf("unexpected goal %q", g.what)
		}
	}
	table := b.report.goalsTable()
	for _, row := range []string{"| 41.2 against 18.8 runs/s: 2.19x | yes |", "| 266 ms | no |", "| 1 wrong of 120 checked | no |"} {
		if !strings.Contains(table, row) {
			t.Errorf("the table lacks %q:\n%s", row, table)
		}
	}
}

// TestShapedPathIsTheRealShape holds the shaped layout to the counts it
// copies: at the real size, as many folders and files at each depth as the
// real tree; at any size, every path distinct.
func TestShapedPathIsTheRealShape(t *testing.T) {
	total := 0
	for _, f := range realFiles {
		total += f
	}
	layout := shapedPath(total)
	files := make([]int, len(realFiles))
	folders := make([]map[string]bool, len(realFolders))
	for d := range folders {
		folders[d] = map[string]bool{}
	}
	for i := range total {
		dir := path.Dir(layout(i))
		d := 0
		if dir != "." {
			d = strings.Count(dir, "/") + 1
		}
		files[d]++
		for ; dir != "."; dir = path.Dir(dir) {
			folders[strings.Count(dir, "/")+1][dir] = true
		}
	}
	for d := range realFiles {
		if d > 0 && len(folders[d]) != realFolders[d] {
			t.Errorf("depth %d: %d folders, want %d", d, len(folders[d]), realFolders[d])
		}
		if files[d] != realFiles[d] {
			t.Errorf("depth %d: %d files, want %d", d, files[d], realFiles[d])
		}
	}
	for _, n := range []int{1_000, 13_000} {
		// As many files a folder as the real tree, within a twentieth.
		want := float64(foldersOf(total, shapedPath(total))) * float64(n) / float64(total)
		if got := float64(foldersOf(n, shapedPath(n))); got < want*0.95 || got > want*1.05 {
			t.Errorf("n=%d: %.0f folders, want %.0f within a twentieth", n, got, want)
		}
		seen := map[string]bool{}
		layout := shapedPath(n)
		for i := range n {
			if p := layout(i); seen[p] {
				t.Fatalf("n=%d: %s twice", n, p)
			} else {
				seen[p] = true
			}
		}
	}
}

// TestPerfShares reads perf's two reports as perf prints them (taken from
// a recording of run -- cat, trimmed, with one row added for a process
// whose name holds spaces): each stage is the sum of its functions'
// shares, git by its command's, and the samples are counted from every
// process's row, not from the header's rounded "3K".
func TestPerfShares(t *testing.T) {
	bySymbol := `# Total Lost Samples: 0
#
# Samples: 3K of event 'cpu-clock:ppp'
# Event count (approx.): 182450000
#
# Children      Self  Symbol
# ........  ........  ......
#
    53.17%     0.00%  [.] runtime.goexit.abi0
    43.00%     0.00%  [.] runtime.main
    32.80%     0.00%  [k] asm_exc_page_fault
    24.20%     0.10%  [.] runtime.doInit1
     9.00%     0.00%  [.] runtime.rt0_go.abi0
    21.20%     0.00%  [.] github.com/freshctx/freshctx/internal/store.Open
`
	byCommand := `# Total Lost Samples: 0
#
# Samples: 3K of event 'cpu-clock:ppp'
# Event count (approx.): 182450000
#
# Overhead       Samples  Command
# ........  ............  .......
#
    77.64%          2833  fc     
    18.53%           676  git    
     3.84%           140  cat    
     0.01%             1  go test run


#
# (Tip: Customize output of perf script with: perf script -F event,ip,sym)
#
`
	n, shares := perfShares(bySymbol, byCommand)
	if n != 2833+676+140+1 {
		t.Fatalf("%d samples, want %d", n, 2833+676+140+1)
	}
	want := map[string]float64{
		"the Go runtime's start and the package inits": 33.2,
		"page faults":                            32.8,
		"opening the store (SQLite, its schema)": 21.2,
		"git's own processes":                    18.53,
	}
	for i, s := range stages {
		if w, ok := want[s.name]; ok && math.Abs(shares[i]-w) > 1e-9 {
			t.Errorf("%s: %.2f%%, want %.2f%%", s.name, shares[i], w)
		}
	}
}

// TestPlacedRotatesTheBenchsOwnBinaries: a binary under the bench's
// folder runs from its copies in turn, byte for byte itself; anything
// else (true, git) as it is; the warm-up round from the original.
func TestPlacedRotatesTheBenchsOwnBinaries(t *testing.T) {
	b := &bench{tmp: t.TempDir()}
	bin := filepath.Join(b.tmp, "freshctx")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	calls := []callCost{{argv: []string{"true"}}, {argv: []string{bin, "version"}}, {argv: []string{bin, "run", "--", "true"}}}
	program, err := b.placed(calls)
	if err != nil {
		t.Fatal(err)
	}
	if got := program(0, 3); got != "true" {
		t.Errorf("true ran as %s", got)
	}
	if got := program(1, -1); got != bin {
		t.Errorf("the warm-up ran %s, want %s", got, bin)
	}
	seen := map[string]bool{}
	for round := range 2 * placements {
		p := program(1, round)
		if p != program(2, round) {
			t.Errorf("round %d: the two calls of one binary ran %s and %s", round, p, program(2, round))
		}
		data, err := os.ReadFile(p)
		if err != nil || string(data) != "#!/bin/sh\n" {
			t.Errorf("round %d ran %s: %q %v", round, p, data, err)
		}
		seen[p] = true
	}
	if len(seen) != placements {
		t.Errorf("the rounds ran %d copies, want %d: %v", len(seen), placements, seen)
	}
}

func TestSwappedTurnsAlternateTheFirstTwo(t *testing.T) {
	var log []string
	step := func(name string) func(int) (time.Duration, error) {
		return func(round int) (time.Duration, error) {
			log = append(log, fmt.Sprintf("%s%d", name, round))
			return time.Duration(len(name)), nil
		}
	}
	prepare := func(round int) error {
		log = append(log, fmt.Sprintf("prep%d", round))
		return nil
	}
	got, err := swappedTurns(3, prepare, step("a"), step("bb"), step("ccc"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"prep-1", "bb-1", "a-1", "ccc-1", // the warm-up, an odd round
		"prep0", "a0", "bb0", "ccc0",
		"prep1", "bb1", "a1", "ccc1",
		"prep2", "a2", "bb2", "ccc2",
	}
	if !slices.Equal(log, want) {
		t.Errorf("order %v, want %v", log, want)
	}
	// Each sample is its own measurement's, in round order, whatever
	// place it ran in; the warm-up is not kept.
	for i, s := range got {
		if len(s) != 3 || s[0] != time.Duration(i+1) {
			t.Errorf("sample %d = %v, want three of %d", i, s, i+1)
		}
	}
	failing := func(int) error { return errors.New("no room") }
	if _, err := swappedTurns(2, failing, step("a")); err == nil {
		t.Error("a failing prepare did not stop the turns")
	}
}
