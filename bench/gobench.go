package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

const goBenchIntro = "The project's Go benchmarks, each of which measures its own baseline in the same run and\n" +
	"reports the ratio (see the README's Benchmarks section for what each measures). Each metric is\n" +
	"given as the median and (min–max) over the benchmark's runs (`-count`)."

// goBench is one `go test -bench` to run.
type goBench struct {
	pkg, pattern, benchtime string
	what                    string
}

var goBenches = []goBench{
	{"./cmd/freshctx", "BenchmarkStartup$", "50x", "the start of a command (freshctx version), built static as the README installs it, against a build with cgo"},
	{"./cmd/freshctx", "BenchmarkRunTrueOverhead$", "10x", "run -- true over true, in a 3-file repository"},
	{"./cmd/freshctx", "BenchmarkConcurrentRuns$", "3x", "8 runs at a time against one store, and one at a time; each run leaves its token counts for the first reader, and one stats then makes them all"},
	{"./internal/records", "BenchmarkRecall$", "1x", "recall p50 and p95 at 1,000, 10,000 and 100,000 records (100, 1,000, 10,000 with -short), beside SQLite FTS5 alone"},
	{"./internal/records", "BenchmarkRecallWaiting$", "10x", "what a recall pays for records waiting for the full-text index, in 10,000 records (1,000 with -short): the first recall after 16 saves against the next, and the search of a store that cannot be written, through the index's temporary copy, against the same search of the index"},
	{"./internal/artifact", "BenchmarkGetHit100k$", "5x", "an artifact hit among 100,000 (10,000 with -short)"},
	{"./internal/artifact", "BenchmarkSlices2000$", "3x", "2,000 slices stored by one call, got with 10 changed, against git status, a get of an artifact never put (cold), gets right after a save by rename (saved) and an add (reindexed), and once the path set's proof broke (listed), among the map's files alone and in a repository of 13,000 files in 1,400 folders (large_)"},
	{"./internal/artifact", "BenchmarkReadSlices2000$", "20x", "reading 2,000 slices and their inputs' stamps from the one packed value a get keeps, against from their rows"},
	{"./internal/registry", "BenchmarkSyncAfterEdit$", "3x", "the sync after 10 edits to a clean 100,000-file tree (10,000 with -short): examining from what its trust check saw, against its trust check and an examination from nothing, and against git status"},
	{"./internal/registry", "BenchmarkSyncDirtyTree$", "10x", "the sync of a 100,000-file tree whose edits are never committed (10,000 with -short), 10 more edited each round, against git status; candidates stays at the 10 new edits"},
	{"./internal/registry", "BenchmarkCountRows100k$", "20x", "counting the rows of a 100,000-row registry from the count the triggers keep, against the whole table counted from its pages"},
	{"./internal/registry", "BenchmarkDecodeScan100k$", "20x", "decoding a 100,000-row scan index with shared strings into a slice sized first, against copying each string into a growing slice"},
	{"./internal/registry", "BenchmarkScanBytes100k$", "20x", "writing a 100,000-row scan index's bytes into a buffer made at their size, against appending to one grown as it fills"},
	{"./internal/registry", "BenchmarkLoadScanPatched100k$", "10x", "loading a 100,000-row scan index (10,000 with -short) one sync behind the rows, patched in place, against copied into a slice grown as it filled: the time and the bytes allocated, every page of which is new to a sync's process"},
	{"./internal/registry", "BenchmarkScanStream100k$", "10x", "feeding the lstat workers a 100,000-row scan index (10,000 with -short) one sync behind the rows, streamed as it is decompressed, against decoded whole and patched: the time and the bytes allocated"},
	{"./internal/store", "BenchmarkOpenWriteClose$", "200x", "opening the store, writing one row and closing it, what every hook and read paid for the store before a process left it instead; against the same write to a SQLite file of one table (the schema SQLite parses on every open, and freshctx's opening checks)"},
	{"./internal/store", "BenchmarkLeaveOrClose$", "30x", "a process that opens the store, writes one row and exits, leaving the store as freshctx does, against closing it as freshctx did: the close's checkpoint and syncs, and the next process's new WAL"},
	{"./internal/workspace", "BenchmarkWholeStatusSplit$", "21x", "the whole-tree status as one git and as two at once (split), in turn, in repositories of 66, 3,000 and 13,000 files (3,000 with -short), five a folder; splits says whether freshctx asks two there"},
	{"./internal/scope", "BenchmarkWalkLeaving2000$", "30x", "the walk of a record's input scope, 10,000 files, leaving the 2,000 the record names to its check (which stats them anyway), against the walk of all of them"},
	{"./internal/workspace", "BenchmarkStagedChanges$", "15x", "what is staged where nothing is, in repositories of 10,000 and 100,000 files (10,000 with -short): from the index's cached tree and one rev-parse, against git diff-index --cached"},
	{"./internal/workspace", "BenchmarkTreeEntries$", "10x", "the entries of 40 and 200 paths read from HEAD's tree with ls-tree against from the whole index listed, in repositories of 10,000 and 100,000 files (10,000 with -short); taken says whether a registry verify reads them from the tree there"},
	{"./internal/scope", "BenchmarkWalkSmallFolders$", "15x", "the walk of a tree of 13,000 files in 2,744 folders (2,000 with -short), five files a folder; every folder read as the walk reads it, against through os.Open"},
	{"./internal/freshness", "BenchmarkOpenRead2000$", "20x", "2,000 small files opened and read whole as a hash reads them, against through os.Open"},
	{"./internal/records", "BenchmarkLoadStamps2000$", "20x", "reading the stamps of a record naming 2,000 files from the one packed value it keeps, against from their rows"},
	{"./internal/readcache", "BenchmarkTrace2000$", "1x", "a scripted 2,000-read session: tokens served against a plain read tool; its unchanged and diff answers checked against what the model saw"},
	{"./internal/readcache", "BenchmarkReadLatency$", "1x", "a warm read at session length 10 and 10,000"},
	{"./internal/readcache", "BenchmarkReadAgainLatency$", "50x", "an unchanged read of a 40-line file as the hooks read (tokens counted later), at session length 10 and 10,000 (1,000 with -short), each entry a read of it again answered with the same uncounted note"},
	{"./internal/readcache", "BenchmarkParallelDelivery$", "20x", "delivering a read after another read of its session was made (parallel tool calls), of another file and of the same file, against a read delivered in order, in a session of 3,000 reads (300 with -short)"},
	{"./internal/readcache", "BenchmarkNoteLookup$", "200x", "looking up the count kept for a note never served, and for one served at every entry but counted at the first, in sessions of 10 and 10,000 entries (1,000 with -short), through the index of kept texts"},
	{"./cmd/freshctx", "BenchmarkHookRead$", "15x", "Claude Code's Read hook as a process: the first read of a 48 KB file in a conversation, and the read of it again (unchanged)"},
	{"./cmd/freshctx", "BenchmarkHookBash$", "30x", "the Bash hook as a process for a line it does not route (ls -la) and one it does (go test), and Codex's Bash hook as init writes it, its bash prefilter, for the same lines, in turn with a hello-world"},
	{"./cmd/freshctx", "BenchmarkHookReadSmallAgain$", "15x", "Claude Code's Read hook as a process: a 9-line file the conversation read before, against the 550-line one, both answered with a note, and a 2-line file answered with itself"},
	{"./cmd/freshctx", "BenchmarkReadTinyAgain$", "30x", "read of a one-line file read before (answered with itself), and of a five-line one (with a note whose count is kept), against a 550-line one (answered with a note), as processes"},
	{"./internal/rx", "BenchmarkShortUse$", "200x", "the expressions of a short output, tried by the matcher alone until their prefilters are made, against with the prefilters made at once"},
	{"./internal/redact", "BenchmarkRulesBuild$", "30x", "building the ruleset from the rules' heads compiled in, against reading them from gitleaks' TOML first and against decoding its whole configuration"},
	{"./internal/redact", "BenchmarkRedact$", "3x", "redaction of a real go test -v log against only splitting it into lines"},
	{"./internal/redact", "BenchmarkRedactLongLine$", "2x", "redaction of minified JavaScript on one line, in 64 KiB pieces: rules on windows around their keywords, against on whole pieces"},
	{"./internal/compress", "BenchmarkCompress50kLines$", "3x", "compression of 50,000 lines"},
	{"./internal/summarize", "BenchmarkAutoBootstrap$", "1x", "registry summarize --auto of a 2,000-file repository from nothing, 4 requests at a time, against a stand-in endpoint: answering at once (freshctx's own work per file, against only sending the same requests), and in 20 ms (the concurrency reached, and the rate against 4 files per 20 ms)"},
	{"./internal/compress", "BenchmarkCompressCorpus$", "3x", "compression of every real output of the corpus, each repeated to 5,000 lines, by the compressor run picks: all of them, and the slowest"},
}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

func (b *bench) goBenchmarks(ctx context.Context, sec *section) error {
	var rows [][]string
	var shortOut []byte // -short: one go test for all of them, each once
	if b.short {
		b.progress("  go test -short -bench (every benchmark below, once)")
		var names, pkgs []string
		for _, g := range goBenches {
			names = append(names, strings.TrimSuffix(g.pattern, "$"))
			if !slices.Contains(pkgs, g.pkg) {
				pkgs = append(pkgs, g.pkg)
			}
		}
		args := []string{"test", "-short", "-run", "^$", "-bench", "^(" + strings.Join(names, "|") + ")$", "-benchtime", "1x", "-count", "1"}
		out, err := b.must(ctx, b.root, "go", append(args, pkgs...)...)
		if err != nil {
			return err
		}
		shortOut = out
	}
	for _, g := range goBenches {
		out := shortOut
		if !b.short {
			b.progress("  go test -bench " + g.pattern + " " + g.pkg)
			var err error
			out, err = b.must(ctx, b.root, "go", "test", "-run", "^$", "-bench", g.pattern, "-benchtime", g.benchtime, "-count", "3", g.pkg)
			if err != nil {
				return err
			}
		}
		metrics := ofBenchmark(parseBench(out), strings.TrimSuffix(g.pattern, "$"))
		b.metrics = append(b.metrics, metrics...)
		if len(metrics) == 0 {
			return fmt.Errorf("go test -bench %s %s printed no results:\n%s", g.pattern, g.pkg, tail(out))
		}
		for _, m := range metrics {
			rows = append(rows, []string{m.bench, g.what, m.unit, m.spread()})
		}
	}
	sec.table([]string{"benchmark", "what", "metric", "median (min–max)"}, rows)
	b.benchGoals()
	if err := b.recallQuality(ctx, sec); err != nil {
		return err
	}
	recall := "p50_ms_100k"
	if b.short {
		recall = "p50_ms_10k"
	}
	b.report.headline("Recall p50 %s ms at %s records; the read cache saves %s%% of a plain read tool's tokens over a scripted 2,000-read session; 8 runs at a time: %s runs/s, p99 %s ms.",
		b.metric("BenchmarkRecall", recall), strings.TrimPrefix(recall, "p50_ms_"), b.metric("BenchmarkTrace2000", "saved_%"),
		b.metric("BenchmarkConcurrentRuns", "runs/s_at_8"), b.metric("BenchmarkConcurrentRuns", "p99_ms"))
	return nil
}

type metric struct {
	bench, unit string
	values      []float64
}

func (m metric) sorted() []float64 {
	v := slices.Clone(m.values)
	slices.Sort(v)
	return v
}

func (m metric) median() float64 { v := m.sorted(); return v[len(v)/2] }

func (m metric) spread() string {
	v := m.sorted()
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
	if len(v) == 1 {
		return f(v[0])
	}
	return fmt.Sprintf("%s (%s–%s)", f(m.median()), f(v[0]), f(v[len(v)-1]))
}

// ofBenchmark keeps the metrics of one benchmark and its sub-benchmarks.
func ofBenchmark(all []metric, name string) []metric {
	var out []metric
	for _, m := range all {
		if m.bench == name || strings.HasPrefix(m.bench, name+"/") {
			out = append(out, m)
		}
	}
	return out
}

// parseBench collects every metric but ns/op of every benchmark line, in
// the order first seen.
func parseBench(out []byte) []metric {
	var list []metric
	index := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		f := strings.Fields(m[2])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil || f[i+1] == "ns/op" {
				continue
			}
			key := m[1] + " " + f[i+1]
			j, ok := index[key]
			if !ok {
				j = len(list)
				index[key] = j
				list = append(list, metric{bench: m[1], unit: f[i+1]})
			}
			list[j].values = append(list[j].values, v)
		}
	}
	return list
}

// metric is the median of a Go benchmark's metric, or "?" if it did not
// report it.
func (b *bench) metric(bench, unit string) string {
	if v, ok := b.metricValue(bench, unit); ok {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return "?"
}

// recallQuality runs the recall evaluation (2,091 records, 103 labelled
// queries; a full run only, it takes about a minute) and quotes its
// figures for freshctx and for FTS5 BM25 on the same index.
func (b *bench) recallQuality(ctx context.Context, sec *section) error {
	if b.short {
		return nil
	}
	b.progress("  go test -run TestRecallEvaluation ./internal/records")
	out, err := b.must(ctx, b.root, "go", "test", "-count", "1", "-run", "^TestRecallEvaluation$", "-v", "./internal/records")
	if err != nil {
		return err
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if strings.Contains(l, "MRR@10") || strings.Contains(l, "recall evaluation:") {
			_, text, _ := strings.Cut(l, ": ")
			lines = append(lines, "`"+text+"`")
		}
	}
	if len(lines) != 3 {
		return fmt.Errorf("the recall evaluation printed %d of its 3 lines:\n%s", len(lines), tail(out))
	}
	sec.note("Recall quality, from `go test ./internal/records -run TestRecallEvaluation -v` in the same run: %s.", strings.Join(lines, "; "))
	return nil
}
