package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/freshctx/freshctx/internal/team"
	"github.com/freshctx/freshctx/internal/testpg"
)

const teamIntro = "The team store on a PostgreSQL 15 started for the report on this machine (a unix socket:\n" +
	"the round trip below is the floor any network adds to). `recall --team` searches a team store\n" +
	"filled with synthetic `go test` failures of one repository (each with its own test name, a\n" +
	"file of 50 and a package of 500, every one holding FAIL), against local `recall` over the\n" +
	"clone's own few records. A team artifact hit is a cold local `artifact get` that takes a\n" +
	"teammate's artifact (a new key each time, so each is cold), against a local hit of the same\n" +
	"artifact in the clone that put it. `run` with publishing on queues its record and starts the\n" +
	"background publisher; it is measured in turn with `run` in a clone with no team store."

// teamRecords is the size of the team store recall --team searches.
func (b *bench) teamRecords() int {
	if b.short {
		return 20_000
	}
	return 1_000_000
}

func (b *bench) team(ctx context.Context, sec *section) error {
	pgBin := testpg.Bin()
	if pgBin == "" {
		sec.note("Not measured: PostgreSQL is not installed (apt-get install postgresql-15).")
		return nil
	}
	b.progress("  starting PostgreSQL")
	pg, err := testpg.Start(pgBin)
	if err != nil {
		return err
	}
	defer pg.Stop()
	url, err := pg.NewDatabase("bench")
	if err != nil {
		return err
	}
	origin := filepath.Join(b.tmp, "team-origin")
	if err := b.makeRepo(ctx, origin, 50, 1); err != nil {
		return err
	}
	clone := func(name string) (string, error) {
		dir := filepath.Join(b.tmp, name)
		_, err := b.must(ctx, b.tmp, "git", "clone", "-q", origin, dir)
		return dir, err
	}
	a, err := clone("team-a")
	if err != nil {
		return err
	}
	c, err := clone("team-b")
	if err != nil {
		return err
	}
	if _, err := b.must(ctx, a, b.bin, "team", "init", url); err != nil {
		return err
	}
	if _, err := b.must(ctx, c, b.bin, "config", "team.url", url); err != nil {
		return err
	}
	if err := b.teamRecall(ctx, sec, url, c); err != nil {
		return err
	}
	if err := b.teamArtifacts(ctx, sec, url, a, c); err != nil {
		return err
	}
	return b.teamRun(ctx, sec, origin, url)
}

// fillTeam writes n synthetic records of the repository into the team
// store, its search index built after them.
func fillTeam(ctx context.Context, url, repo string, n int) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		`DROP INDEX team_records_search`,
		`INSERT INTO team_records (key, repo_id, command, label, exit_code, intent, summary, raw, files, commit, branch,
			author, machine, ci, created_at, signature, parts)
		SELECT 'bench/' || i, $1, 'go test ./pkg' || (i % 500) || '/...', '', 1, '',
			'--- FAIL: TestCase' || i || ' (0.01s)' || chr(10) || '    file' || (i % 50) || '_test.go:' || (i % 300) ||
				': want ' || (i % 7) || ', got ' || (i % 11) || chr(10) || 'FAIL example.com/app/pkg' || (i % 500),
			'\x'::bytea,
			jsonb_build_array(jsonb_build_object('path', 'pkg' || (i % 500) || '/file' || (i % 50) || '_test.go',
				'sha256', md5(i::text) || md5(i::text), 'size', 100, 'existed', true)),
			'', 'main', 'ci@example.com', 'ci', true, now() - make_interval(secs => $2 - i), '',
			'test case' || i || ' file' || (i % 50) || ' test go pkg' || (i % 500)
		FROM generate_series(1, $2::int) AS i`,
		`CREATE INDEX team_records_search ON team_records USING gin (search)`,
		`ANALYZE team_records`,
	} {
		var args []any
		if strings.Contains(q, "$1") {
			args = []any{repo, n}
		}
		if _, err := conn.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("fill the team store: %w", err)
		}
	}
	return nil
}

func (b *bench) teamRecall(ctx context.Context, sec *section, url, dir string) error {
	n := b.teamRecords()
	out, err := b.must(ctx, dir, "git", "rev-list", "--max-parents=0", "HEAD")
	if err != nil {
		return err
	}
	b.progress(fmt.Sprintf("  filling the team store with %d records", n))
	start := time.Now()
	if err := fillTeam(ctx, url, strings.TrimSpace(string(out)), n); err != nil {
		return err
	}
	filled := time.Since(start)
	for i := range 20 { // local records for local recall
		script := fmt.Sprintf("echo '--- FAIL: TestLocal%d'; echo '    file%d_test.go:3: want 1, got 2'; echo FAIL; exit 1", i, i%5)
		if _, _, err := b.run(b.cmd(ctx, dir, b.bin, "run", "--", "sh", "-c", script), false); err != nil &&
			!strings.Contains(err.Error(), "exit status 1") {
			return err
		}
	}
	queries := []string{fmt.Sprintf("TestCase%d", n/2), "FAIL", "file7_test.go want", "pkg42"}
	var rows [][]string
	var worst time.Duration
	for _, q := range queries {
		shared, err := b.timeCmd(func(int) *exec.Cmd { return b.cmd(ctx, dir, b.bin, "recall", "--team", "--json", q) })
		if err != nil {
			return err
		}
		local, err := b.timeCmd(func(int) *exec.Cmd { return b.cmd(ctx, dir, b.bin, "recall", "--json", q) })
		if err != nil {
			return err
		}
		worst = max(worst, shared.median())
		rows = append(rows, []string{"`" + q + "`", spread(shared), spread(local), ratio(shared, local)})
	}
	sec.note("A team store of %d records (written and indexed in %s).", n, filled.Round(time.Second))
	sec.table([]string{"query", "recall --team", "local recall", "ratio"}, rows)
	b.report.goal(fmt.Sprintf("`recall --team` over %d team records: p50 at most 50 ms on loopback", n), worst <= 50*time.Millisecond,
		"%s (the slowest query's median)", ms(worst))
	return nil
}

func (b *bench) teamArtifacts(ctx context.Context, sec *section, url, a, c string) error {
	os.WriteFile(filepath.Join(a, "lint.txt"), []byte("what lint read\n"), 0o644)
	os.WriteFile(filepath.Join(c, "lint.txt"), []byte("what lint read\n"), 0o644)
	n := b.repeats + 1
	for i := -1; i < n; i++ {
		put := b.cmd(ctx, a, b.bin, "artifact", "put", "tool_result", fmt.Sprintf("lint-%d", i), "--dep", "lint.txt")
		put.Stdin = strings.NewReader(strings.Repeat("lint: all clean\n", 200))
		if out, err := put.CombinedOutput(); err != nil {
			return fmt.Errorf("artifact put: %v %s", err, out)
		}
	}
	if _, err := b.must(ctx, a, b.bin, "team", "publish"); err != nil {
		return err
	}
	local, err := b.timeCmd(func(int) *exec.Cmd { return b.cmd(ctx, a, b.bin, "artifact", "get", "tool_result", "lint-0") })
	if err != nil {
		return err
	}
	shared, err := b.timeCmd(func(i int) *exec.Cmd {
		return b.cmd(ctx, c, b.bin, "artifact", "get", "tool_result", fmt.Sprintf("lint-%d", i))
	})
	if err != nil {
		return err
	}
	rtt, err := roundTrip(ctx, url, 21)
	if err != nil {
		return err
	}
	sec.table([]string{"artifact get", "median (min–max)", "against a local hit"}, [][]string{
		{"a local hit", spread(local), "1x"},
		{"a team hit (cold here, taken from the team store)", spread(shared), ratio(shared, local)},
		{"one round trip to the team store", spread(rtt), ""},
	})
	limit := 2*local.median() + rtt.median()
	b.report.goal("a team artifact hit: at most 2x a local hit plus one round trip", shared.median() <= limit,
		"%s against %s (2 × %s + %s)", ms(shared.median()), ms(limit), ms(local.median()), ms(rtt.median()))
	return nil
}

// roundTrip is n pings of the team store over one connection.
func roundTrip(ctx context.Context, url string, n int) (sample, error) {
	ts, err := team.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	defer ts.Close()
	var s sample
	for range n {
		d, err := ts.Latency(ctx)
		if err != nil {
			return nil, err
		}
		s = append(s, d)
	}
	return s, nil
}

func (b *bench) teamRun(ctx context.Context, sec *section, origin, url string) error {
	on, off := filepath.Join(b.tmp, "team-on"), filepath.Join(b.tmp, "team-off")
	for _, d := range []string{on, off} {
		if _, err := b.must(ctx, b.tmp, "git", "clone", "-q", origin, d); err != nil {
			return err
		}
	}
	if _, err := b.must(ctx, on, b.bin, "config", "team.url", url); err != nil {
		return err
	}
	if _, err := b.must(ctx, on, b.bin, "config", "team.publish", "all"); err != nil {
		return err
	}
	rounds := 21
	if b.short {
		rounds = 5
	}
	var with, without sample
	for i := -1; i < rounds; i++ { // in turn, so both see the same machine
		w, err := b.timed(b.cmd(ctx, on, b.bin, "run", "--", "echo", "ok"))
		if err != nil {
			return err
		}
		wo, err := b.timed(b.cmd(ctx, off, b.bin, "run", "--", "echo", "ok"))
		if err != nil {
			return err
		}
		if i >= 0 {
			with, without = append(with, w), append(without, wo)
		}
	}
	sent, err := b.must(ctx, on, b.bin, "team", "publish")
	if err != nil {
		return err
	}
	sec.table([]string{"`run -- echo ok`", "median (min–max)", "ratio"}, [][]string{
		{"no team store", spread(without), "1x"},
		{"publishing every record", spread(with), ratio(with, without)},
	})
	sec.note("After the rounds, `team publish` said: %s", strings.TrimSpace(string(sent)))
	r := float64(with.median()) / float64(without.median())
	b.report.goal("`run` with publishing on: at most 1.05x `run` without", r <= 1.05, "%s", times(r))
	return nil
}
