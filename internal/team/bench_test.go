package team

import (
	"context"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testbench"
	"github.com/freshctx/freshctx/internal/testpg"
)

// BenchmarkCandidatesLongOutputs times the statement Candidates sends for
// each term (newestHolding) on a term 500 records hold among 20,500, each
// of the 500 with 16 KB of output (about what a failing go test prints):
// with the outputs' sums (a verify key is set) and without, against, in
// turn, the statement before, whose select list hashed the output of
// every record holding the term before the newest 200 were kept. Each
// statement's plan is the server's, as recall meets it. x_sums and
// x_no_sums are the ratios of the statement before to each. With -short,
// 2,050 records and 50 of them.
func BenchmarkCandidatesLongOutputs(b *testing.B) {
	s := open(b)
	ctx := context.Background()
	plain, holding := 20_000, 500
	if testing.Short() {
		plain, holding = 2_000, 50
	}
	fill := `INSERT INTO team_records (key, repo_id, command, label, exit_code, intent, summary, raw, files, commit, branch,
			author, machine, ci, created_at, signature, parts)
		SELECT 'k' || i, 'repo-1', 'go test ./...', '', 1, '', '--- FAIL: TestCase' || i,
			CASE WHEN i % $2 = 0
				THEN convert_to((SELECT string_agg(md5((i * 1000 + j)::text), ' ') FROM generate_series(1, 480) AS j), 'UTF8')
				ELSE '\x'::bytea END,
			'[]', '', 'main', 'ci@example.com', 'ci', true, now() - make_interval(secs => $1 - i), '',
			CASE WHEN i % $2 = 0 THEN 'rare' ELSE 'common' END
		FROM generate_series(1, $1::int) AS i`
	n := plain + holding
	if _, err := s.conn.Exec(ctx, fill, n, n/holding); err != nil {
		b.Fatal(err)
	}
	// ANALYZE as the server would; and each statement planned for its
	// values every time, as in recall's one-statement connection: after
	// five runs the server would keep a generic plan for the loop.
	for _, q := range []string{`ANALYZE team_records`, `SET plan_cache_mode = force_custom_plan`} {
		if _, err := s.conn.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	before := `SELECT ` + recordColumns + ` FROM team_records
		WHERE repo_id = $1 AND search @@ plainto_tsquery('simple', $2) ORDER BY created_at DESC LIMIT $3`
	const perTerm = 200
	read := func(statement string) time.Duration {
		start := time.Now()
		rows, err := s.conn.Query(ctx, statement, "repo-1", "rare", perTerm)
		if err != nil {
			b.Fatal(err)
		}
		got, err := scanRecords(rows)
		if err != nil || len(got) != min(perTerm, holding) {
			b.Fatalf("%d records, %v, want %d:\n%s", len(got), err, min(perTerm, holding), statement)
		}
		return time.Since(start)
	}
	var old, sums, noSums []time.Duration
	for b.Loop() {
		old = append(old, read(before))
		sums = append(sums, read(newestHolding(true)))
		noSums = append(noSums, read(newestHolding(false)))
	}
	testbench.MedianMS(b, old, "before_ms")
	testbench.MedianMS(b, sums, "sums_ms")
	testbench.MedianMS(b, noSums, "no_sums_ms")
	testbench.Ratio(b, old, sums, "x_sums")
	testbench.Ratio(b, old, noSums, "x_no_sums")
}

// BenchmarkCandidatesRoundTrips times what recall --team does on the
// network: connect, send Candidates' batch for two terms, read, close,
// through a proxy that adds 10 ms to every round trip, on 2,000 records:
// each statement described by the server before it runs (pgx's default,
// which caches the description for later calls a one-batch process never
// makes) against sent in one round trip (QueryExecModeExec), in turn.
func BenchmarkCandidatesRoundTrips(b *testing.B) {
	cluster := testpg.Shared(b)
	url := cluster.Database(b)
	s, err := Open(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if _, err := s.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := s.conn.Exec(ctx, `INSERT INTO team_records (key, repo_id, command, label, exit_code, intent, summary,
			raw, files, commit, branch, author, machine, ci, created_at, signature, parts)
		SELECT 'k' || i, 'repo-1', 'go test ./...', '', 1, '', '--- FAIL: TestCase' || i, '\x'::bytea,
			'[]', '', 'main', 'ci@example.com', 'ci', true, now() - make_interval(secs => 2000 - i), '',
			'test case' || i || ' pkg' || (i % 50)
		FROM generate_series(1, 2000) AS i`); err != nil {
		b.Fatal(err)
	}
	proxy := cluster.Proxy(b)
	proxy.SetDelay(5 * time.Millisecond)
	via := proxy.Via(url)
	search := func(open func(context.Context, string, Timeouts) (*Store, error)) time.Duration {
		start := time.Now()
		ts, err := open(ctx, via, Asked)
		if err != nil {
			b.Fatal(err)
		}
		f, err := ts.Candidates(ctx, "repo-1", []string{"testcase1500", "pkg7"}, 200, 1000, false)
		ts.Close()
		if err != nil || len(f.Records) == 0 {
			b.Fatalf("%d candidates, %v", len(f.Records), err)
		}
		return time.Since(start)
	}
	var described, direct []time.Duration
	for b.Loop() {
		described = append(described, search(OpenWith))
		direct = append(direct, search(OpenSearch))
	}
	testbench.MedianMS(b, described, "described_ms")
	testbench.MedianMS(b, direct, "one_trip_ms")
	testbench.Ratio(b, direct, described, "x_described")
}
