package records

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/facts"
	"github.com/freshctx/freshctx/internal/rank"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testbench"
	"github.com/freshctx/freshctx/internal/testgit"
)

// seedRecords writes n realistic records straight into the store (running n
// commands would take hours): go-test-like digests naming tests, files and
// symbols drawn from fixed vocabularies, each with its facts, files and
// full-text row, as save writes them.
func seedRecords(tb testing.TB, s *Service, n int, files []string) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	words := make([]string, 3000)
	for i := range words {
		words[i] = fmt.Sprintf("%s%d", []string{"parse", "load", "store", "index", "query", "render", "fetch", "merge"}[i%8], i)
	}
	ctx := context.Background()
	const batch = 5000
	for start := 0; start < n; start += batch {
		err := s.Store.Update(ctx, func(tx *store.Tx) error {
			for i := start; i < min(start+batch, n); i++ {
				if err := seedOne(ctx, tx, rng, words, files, i); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
}

func seedOne(ctx context.Context, tx *store.Tx, rng *rand.Rand, words, files []string, i int) error {
	test := "Test" + strings.ToUpper(words[rng.IntN(len(words))][:1]) + words[rng.IntN(len(words))][1:]
	file := files[rng.IntN(len(files))]
	sym := words[rng.IntN(len(words))]
	digest := fmt.Sprintf("--- FAIL: %s (0.01s)\n    %s:%d: %s returned %s, want %s\nundefined: %s\nFAIL\tgithub.com/acme/%s\t0.2%02ds\n",
		test, file, rng.IntN(300), words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))],
		sym, words[rng.IntN(len(words))], rng.IntN(99))
	res, err := tx.ExecContext(ctx, `INSERT INTO records (kind, command, argv, root, cwd, intent, compressor,
		exit_code, started_at, duration_ms, stdout_bytes, stderr_bytes, raw_tokens, raw_tokens_exact, digest,
		digest_tokens, git_head, is_git, stamped_at) VALUES ('run', 'go test ./...', '[]', ?, '.', 'summary',
		'generic', 1, ?, 100, 4000, 0, 1000, 1, ?, 60, '', 1, ?)`,
		rootOf(tx), time.Now().Add(-time.Duration(100000-i)*time.Minute).UnixNano(), digest, time.Now().UnixNano())
	if err != nil {
		return err
	}
	id, _ := res.LastInsertId()
	_, err = tx.ExecContext(ctx, `INSERT INTO record_files (record_id, path, base, existed, is_dir, size,
		mtime_ns, sha256, git_clean) VALUES (?, ?, ?, 1, 0, 1, 1, '', 0)`, id, file, file[strings.LastIndexByte(file, '/')+1:])
	if err != nil {
		return err
	}
	var set facts.Set
	for _, l := range strings.Split(digest, "\n") {
		set.Add(l)
	}
	if err := insertFacts(ctx, tx, id, set.List()); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO records_fts(rowid, command, label, digest, facts) VALUES (?, ?, '', ?, ?)`,
		id, "go test ./...", digest, set.Text()+file)
	return err
}

// writeFiles writes n Go files in folders folders of the repository, not
// committed, and returns their paths.
func writeFiles(r *testgit.Repo, n, folders int) []string {
	var files []string
	for i := range n {
		f := fmt.Sprintf("pkg/p%d/file%d.go", i%folders, i)
		files = append(files, f)
		r.Write(f, "package p\n")
	}
	return files
}

// seededService is a service over a repository of files committed Go
// files in 20 folders, its store seeded with records naming them.
func seededService(tb testing.TB, records, files int) *Service {
	tb.Helper()
	s, r := newService(tb)
	names := writeFiles(r, files, 20)
	r.Commit("files")
	benchRoot = s.WS.Root
	seedRecords(tb, s, records, names)
	return s
}

// benchRoot is the workspace root recorded in seeded rows.
var benchRoot string

func rootOf(*store.Tx) string { return benchRoot }

// BenchmarkRecall measures recall latency over 1,000, 10,000 and 100,000
// stored records (100, 1,000 and 10,000 with -short) in a 500-file
// repository, beside SQLite FTS5 alone (the query's words, bm25-ranked)
// over the same index, and reports the p50 and p95 of each and the growth
// of recall's p50 from the middle size to the largest: linear would be 10.
func BenchmarkRecall(b *testing.B) {
	sizes := []int{1_000, 10_000, 100_000}
	if testing.Short() {
		sizes = []int{100, 1_000, 10_000}
	}
	queries := []string{"TestParse12 failed", "store.go undefined", "merge7 render", "FAIL github.com/acme/query40",
		"index2999", "pkg/p3/file13.go", "TestLoad9", "returned want", "fetch100 returned", "undefined: render5"}
	type result struct{ ours, fts []time.Duration }
	measure := func(n int) result {
		s := seededService(b, n, 500)
		var res result
		ctx := context.Background()
		for i := 0; i < 3*len(queries); i++ {
			q := queries[i%len(queries)]
			start := time.Now()
			if _, err := s.Recall(ctx, RecallRequest{Query: q}); err != nil {
				b.Fatal(err)
			}
			res.ours = append(res.ours, time.Since(start))
			start = time.Now()
			if _, err := plainBM25(ctx, s, q); err != nil {
				b.Fatal(err)
			}
			res.fts = append(res.fts, time.Since(start))
		}
		slices.Sort(res.ours)
		slices.Sort(res.fts)
		return res
	}
	results := make([]result, len(sizes))
	for b.Loop() {
		for i, n := range sizes {
			results[i] = measure(n)
		}
	}
	at := func(ds []time.Duration, p int) float64 { return float64(ds[len(ds)*p/100].Microseconds()) / 1000 }
	for i, n := range sizes {
		k := fmt.Sprintf("%dk", n/1000)
		if n < 1000 {
			k = fmt.Sprint(n)
		}
		b.ReportMetric(at(results[i].ours, 50), "p50_ms_"+k)
		b.ReportMetric(at(results[i].ours, 95), "p95_ms_"+k)
		b.ReportMetric(at(results[i].fts, 50), "fts5_p50_ms_"+k)
		b.ReportMetric(at(results[i].fts, 95), "fts5_p95_ms_"+k)
	}
	mid, last := results[len(sizes)-2].ours, results[len(sizes)-1].ours
	b.ReportMetric(float64(last[len(last)/2])/float64(mid[len(mid)/2]), "growth_x10")
}

// BenchmarkRecallWaiting measures what a recall pays for the records that
// wait for the full-text index (unindexed.go) in a store of 10,000 records
// (1,000 with -short): the first recall after 16 saves, which indexes
// them, beside the next (none waiting), and the search of a store that
// cannot be written, through the index's temporary copy, beside the same
// search of the index itself; each pair timed in turn.
func BenchmarkRecallWaiting(b *testing.B) {
	n := 10_000
	if testing.Short() {
		n = 1_000
	}
	s := seededService(b, n, 100)
	ctx := context.Background()
	const query = "TestParse12 failed"
	recall := func() time.Duration {
		start := time.Now()
		if _, err := s.Recall(ctx, RecallRequest{Query: query}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	search := func(tx *store.Tx) error {
		_, err := rankRecords(ctx, tx, rank.Parse(query), nil, 10)
		return err
	}
	view := func(fn func(*store.Tx) error) time.Duration {
		start := time.Now()
		if err := s.Store.View(ctx, fn); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var after, base, copied, searched []time.Duration
	for i := 0; b.Loop(); i++ {
		for j := range 16 {
			keep(b, s, fmt.Sprintf("--- FAIL: TestParse%d (0.00s)\n", i*16+j))
		}
		after = append(after, recall())
		base = append(base, recall())
		copied = append(copied, view(func(tx *store.Tx) error { return withTempIndex(ctx, tx, search) }))
		searched = append(searched, view(search))
	}
	testbench.MedianMS(b, base, "recall_ms")
	testbench.Ratio(b, after, base, "after_16_saves_x")
	testbench.MedianMS(b, searched, "search_ms")
	testbench.Ratio(b, copied, searched, "search_through_a_copy_x")
}
