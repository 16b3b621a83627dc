package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/team"
	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/testpg"
	"github.com/freshctx/freshctx/internal/testrace"
)

// teamClone is a clone of a repository with its own local store.
type teamClone struct {
	t   *testing.T
	bin string
	dir string
	env []string
}

func (c *teamClone) freshctx(args ...string) (string, error) {
	cmd := exec.Command(c.bin, args...)
	cmd.Dir, cmd.Env = c.dir, c.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (c *teamClone) must(args ...string) string {
	c.t.Helper()
	out, err := c.freshctx(args...)
	if err != nil {
		c.t.Fatalf("freshctx %v: %v\n%s", args, err, out)
	}
	return out
}

// recall is recall --team's hits, labels and authors.
func (c *teamClone) recall(query string) []struct {
	Command   string
	Author    string
	Freshness struct{ Label string }
} {
	c.t.Helper()
	var res struct {
		Results []struct {
			Command   string
			Author    string
			Freshness struct{ Label string }
		}
	}
	if err := json.Unmarshal([]byte(c.must("recall", "--team", "--json", query)), &res); err != nil {
		c.t.Fatal(err)
	}
	return res.Results
}

// TestTeamRecallIsFreshOnlyForMyBytes: a failing go test run in clone A is
// found by recall --team in clone B at the same commit, fresh; after B
// edits the file it names it is stale_changed; in clone C, whose copy of
// that file differs, it is never fresh.
func TestTeamRecallIsFreshOnlyForMyBytes(t *testing.T) {
	testrace.Skip(t, "drives separate processes")
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs go")
	}
	pg := testpg.Own(t)
	url := pg.Database(t)
	bin := testbin.Build(t)
	origin := testgit.New(t)
	writeCalcModule(t, origin.Dir)
	origin.Commit("calc")
	gocache, _ := exec.Command("go", "env", "GOCACHE").Output()
	clone := func(name, email string) *teamClone {
		dir := filepath.Join(t.TempDir(), name)
		if out, err := exec.Command("git", "clone", "-q", origin.Dir, dir).CombinedOutput(); err != nil {
			t.Fatalf("clone: %v %s", err, out)
		}
		env := append(os.Environ(), "GOCACHE="+strings.TrimSpace(string(gocache)), "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_EMAIL="+email, "HOME="+t.TempDir())
		exec.Command("git", "-C", dir, "config", "user.email", email).Run()
		return &teamClone{t: t, bin: bin, dir: dir, env: env}
	}
	a, b, c := clone("a", "ana@example.com"), clone("b", "bo@example.com"), clone("c", "cy@example.com")
	a.must("team", "init", url)
	for _, x := range []*teamClone{b, c} {
		x.must("config", "team.url", url)
	}
	if out, err := a.freshctx("run", "--", "go", "test", "./..."); err == nil || !strings.Contains(out, "calc_test.go") {
		t.Fatalf("the failing run: %v\n%s", err, out)
	}
	a.must("team", "publish") // the background publisher may have sent it already: publishing is idempotent
	if out := a.must("team", "status"); !strings.Contains(out, "1 records shared") || !strings.Contains(out, "0 records waiting") {
		t.Fatalf("team status after publishing: %s", out)
	}

	hits := b.recall("TestAdd")
	if len(hits) != 1 || hits[0].Freshness.Label != "fresh" || hits[0].Author != "ana@example.com" {
		t.Fatalf("in clone B at the same commit: %+v, want one fresh record by ana@example.com", hits)
	}
	test := filepath.Join(b.dir, "calc_test.go")
	src, _ := os.ReadFile(test)
	os.WriteFile(test, append(src, []byte("\n// edited in B\n")...), 0o644)
	if hits := b.recall("TestAdd"); len(hits) != 1 || hits[0].Freshness.Label != "stale_changed" {
		t.Fatalf("after B edits calc_test.go: %+v, want stale_changed", hits)
	}
	other := filepath.Join(c.dir, "calc_test.go")
	os.WriteFile(other, []byte(strings.Replace(string(src), "want 3", "want three", 1)), 0o644)
	if hits := c.recall("TestAdd"); len(hits) != 1 || hits[0].Freshness.Label == "fresh" {
		t.Fatalf("in clone C whose calc_test.go differs: %+v, want never fresh", hits)
	}
}

// newTeamRepo is a committed repository and a clone-maker over it.
func newTeamRepo(t *testing.T, bin string) func(name, email string) *teamClone {
	origin := testgit.New(t)
	origin.Write("notes.txt", notesText(20))
	origin.Commit("notes")
	return func(name, email string) *teamClone {
		dir := filepath.Join(t.TempDir(), name)
		if out, err := exec.Command("git", "clone", "-q", origin.Dir, dir).CombinedOutput(); err != nil {
			t.Fatalf("clone: %v %s", err, out)
		}
		exec.Command("git", "-C", dir, "config", "user.email", email).Run()
		return &teamClone{t: t, bin: bin, dir: dir, env: append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())}
	}
}

// failing is a command whose output names notes.txt and that fails.
var failing = []string{"run", "--", "sh", "-c", "echo 'notes.txt:3: FAIL the check'; exit 1"}

// TestTeamStoreDownCostsNothing: with the team store down, run works and
// keeps its record (queued); status says it is unreachable; once the
// server is back the queue drains, and publishing again, or after a
// restart of the server, adds no duplicate.
func TestTeamStoreDownCostsNothing(t *testing.T) {
	pg, _, a := teamOfOne(t)
	pg.Down(t)
	for i := range 3 {
		if out, err := a.freshctx(failing...); err == nil || !strings.Contains(out, "FAIL the check") {
			t.Fatalf("run %d with the team store down: %v\n%s", i, err, out)
		}
	}
	if n := strings.Count(a.must("list"), "FAIL the check"); n != 3 {
		t.Fatalf("%d records kept locally, want 3", n)
	}
	out := a.must("team", "status")
	if !strings.Contains(out, "not reachable") || !strings.Contains(out, "3 records waiting") {
		t.Fatalf("status with the store down: %s", out)
	}
	if strings.Contains(out, "password") {
		t.Fatalf("status shows a password: %s", out)
	}
	if _, err := a.freshctx("team", "publish"); err == nil {
		t.Fatal("publish with the store down succeeded")
	}
	pg.Up(t)
	if out := a.must("team", "publish"); !strings.Contains(out, "0 waiting") {
		t.Fatalf("publish once the store is back: %s", out)
	}
	a.freshctx("run", "--", "sh", "-c", "echo 'notes.txt:9: FAIL again'; exit 1")
	pg.Restart(t, 0)
	if out, err := a.freshctx("team", "publish", "--since", "1h"); err != nil { // everything again, after a restart
		t.Fatalf("publish after a restart: %v\n%s", err, out)
	}
	if out := a.must("team", "status"); !strings.Contains(out, "4 records shared") || !strings.Contains(out, "0 records waiting") {
		t.Fatalf("after a restart and publishing everything again: %s", out)
	}
}

// TestTeamRecallWithoutACommitWaitsForNoServer: recall --team connects to
// the team store while it reads the repository's id; in a repository with
// no commit yet, which the team store cannot share by, it says so and
// stops the connection instead of waiting it out. The server here accepts
// and never answers: without the stop, recall would wait the whole
// connect timeout (team.Asked.Connect) and fail the test's bound, half of
// it, which a start and one git process never come near.
func TestTeamRecallWithoutACommitWaitsForNoServer(t *testing.T) {
	testrace.Skip(t, "drives separate processes")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn // never answered, closed when the test ends
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	r := testgit.New(t)
	c := &teamClone{t: t, bin: testbin.Build(t), dir: r.Dir, env: append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())}
	c.must("config", "team.url", "postgres://reader@"+ln.Addr().String()+"/team?sslmode=disable")
	ctx, cancel := context.WithTimeout(context.Background(), team.Asked.Connect/2)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, "recall", "--team", "FAIL")
	cmd.Dir, cmd.Env = c.dir, c.env
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("recall --team in a repository with no commit waited for a server that never answers\n%s", out)
	}
	if err == nil || !strings.Contains(string(out), "no commit yet") {
		t.Fatalf("recall --team in a repository with no commit: %v\n%s", err, out)
	}
}

// TestTeamSignedOnly: with team.require_signed, a record not signed by the
// team's private key is never served and is counted; one CI signed is.
func TestTeamSignedOnly(t *testing.T) {
	testrace.Skip(t, "drives separate processes")
	pg := testpg.Own(t)
	url := pg.Database(t)
	bin := testbin.Build(t)
	clone := newTeamRepo(t, bin)
	laptop, ci, reader := clone("laptop", "ana@example.com"), clone("ci", "ci@example.com"), clone("reader", "bo@example.com")
	var key struct{ SigningKey, VerifyKey string }
	json.Unmarshal([]byte(laptop.must("team", "key", "--json")), &struct {
		SigningKey *string `json:"signing_key"`
		VerifyKey  *string `json:"verify_key"`
	}{&key.SigningKey, &key.VerifyKey})
	laptop.must("team", "init", url)
	ci.must("config", "team.url", url)
	ci.env = append(ci.env, "FRESHCTX_TEAM_SIGNING_KEY="+key.SigningKey, "CI=true")
	reader.must("config", "team.url", url)
	reader.must("config", "team.verify_key", key.VerifyKey)
	reader.must("config", "team.require_signed", "true")
	laptop.freshctx("run", "--", "sh", "-c", "echo 'notes.txt:3: FAIL unsigned'; exit 1")
	laptop.must("team", "publish")
	ci.freshctx("run", "--", "sh", "-c", "echo 'notes.txt:3: FAIL signed'; exit 1")
	ci.must("team", "publish")
	out := reader.must("recall", "--team", "FAIL")
	if !strings.Contains(out, "FAIL signed") || strings.Contains(out, "FAIL unsigned") ||
		!strings.Contains(out, "1 unsigned team records left out") || !strings.Contains(out, "(CI)") {
		t.Fatalf("recall with require_signed:\n%s", out)
	}
	// An artifact: the laptop's unsigned one is never taken, CI's is.
	laptop.put("lint: unsigned\n", "tool_result", "lint", "--dep", "notes.txt")
	laptop.must("team", "publish")
	if code, out := reader.get("tool_result", "lint"); code != exitColdCode || strings.Contains(out, "unsigned") {
		t.Fatalf("an unsigned artifact with require_signed: exit %d\n%s", code, out)
	}
	ci.put("lint: signed\n", "tool_result", "lint", "--dep", "notes.txt")
	ci.must("team", "publish")
	if code, out := reader.get("tool_result", "lint"); code != 0 || !strings.Contains(out, "lint: signed") ||
		!strings.Contains(out, "(CI)") || !strings.Contains(out, ", signed") {
		t.Fatalf("CI's signed artifact with require_signed: exit %d\n%s", code, out)
	}
	out = reader.must("team", "status")
	if !strings.Contains(out, "2 records shared, 1 of them signed; 1 ignored") ||
		!strings.Contains(out, "2 artifacts shared, 1 of them signed; 1 ignored") {
		t.Fatalf("team status with require_signed:\n%s", out)
	}
	// Without the team's verify key no record can be shown signed: every
	// one is ignored.
	keyless := clone("keyless", "cy@example.com")
	keyless.must("config", "team.url", url)
	keyless.must("config", "team.require_signed", "true")
	if out := keyless.must("team", "status"); !strings.Contains(out, "2 records shared, 1 of them signed; 2 ignored") {
		t.Fatalf("team status with require_signed and no verify key:\n%s", out)
	}
}

// TestTeamSummariesFillOnlyMatchingBytes: a summary written in clone A
// fills clone B's registry (saying who wrote it) for the same bytes, and
// never clone C's, whose copy of the file differs.
func TestTeamSummariesFillOnlyMatchingBytes(t *testing.T) {
	testrace.Skip(t, "drives separate processes")
	pg := testpg.Own(t)
	url := pg.Database(t)
	bin := testbin.Build(t)
	clone := newTeamRepo(t, bin)
	a, b, c := clone("a", "ana@example.com"), clone("b", "bo@example.com"), clone("c", "cy@example.com")
	a.must("team", "init", url)
	b.must("config", "team.url", url)
	c.must("config", "team.url", url)
	os.WriteFile(filepath.Join(c.dir, "notes.txt"), []byte("other bytes\n"), 0o644)
	a.must("registry", "sync")
	a.must("registry", "summarize", "notes.txt", "--text", "Twenty numbered lines of notes.")
	a.must("team", "publish") // or the publisher summarize started sent it: publishing waits for it
	summary := func(x *teamClone) (string, string) {
		var res struct {
			Files []struct {
				Path      string
				SummaryBy string `json:"summary_by"`
				Summary   *string
			}
		}
		x.must("registry", "sync")
		json.Unmarshal([]byte(x.must("registry", "list", "--json")), &res)
		for _, f := range res.Files {
			if f.Path == "notes.txt" && f.Summary != nil {
				return *f.Summary, f.SummaryBy
			}
		}
		return "", ""
	}
	if s, by := summary(b); s != "Twenty numbered lines of notes." || !strings.Contains(by, "ana@example.com") {
		t.Fatalf("clone B, same bytes: summary %q by %q", s, by)
	}
	if s, _ := summary(c); s != "" {
		t.Fatalf("clone C, other bytes: took the summary %q", s)
	}
	if out := b.must("registry", "list"); !strings.Contains(out, "Twenty numbered lines of notes. (by ana@example.com") {
		t.Fatalf("registry list does not say who wrote the summary:\n%s", out)
	}
}

// TestTeamRecallRanksAsLocalRecall: recall --team orders the team's
// records as recall orders the same records in the store that made them.
func TestTeamRecallRanksAsLocalRecall(t *testing.T) {
	_, _, a := teamOfOne(t)
	a.must("config", "team.publish", "all")
	for _, out := range []string{
		`--- FAIL: TestAddNumbers (0.00s)\n    calc_test.go:12: Add(1, 2) = -1`,
		`--- FAIL: TestParseConfig (0.01s)\n    config_test.go:40: parse error: unexpected EOF`,
		`ok  example.com/calc 0.01s`,
		`--- FAIL: TestSubtract (0.00s)\n    calc_test.go:30: Sub(3, 1) = 4`,
		`notes.txt:3: warning: line too long (parse later)`,
		`--- FAIL: TestAdd (0.00s)\n    add_test.go:7: want 3`,
	} {
		a.freshctx("run", "--", "sh", "-c", "printf '"+out+"\\n'; exit 1")
	}
	a.must("team", "publish")
	order := func(team bool, query string) []string {
		args := []string{"recall", "--json", query}
		if team {
			args = append(args, "--team")
		}
		var res struct {
			Results []struct{ Command string }
		}
		if err := json.Unmarshal([]byte(a.must(args...)), &res); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range res.Results {
			out = append(out, h.Command)
		}
		return out
	}
	for _, q := range []string{"TestAdd", "Add", "calc_test.go", "parse", "FAIL Sub", "config error", "long line notes.txt"} {
		local, shared := order(false, q), order(true, q)
		if len(local) == 0 || strings.Join(local, "\n") != strings.Join(shared, "\n") {
			t.Errorf("%q: recall --team gave\n  %s\nrecall gave\n  %s", q, strings.Join(shared, "\n  "), strings.Join(local, "\n  "))
		}
	}
}

// teamOfOne is a cluster of its own, a database in it, and a clone that
// uses it as its team store.
func teamOfOne(t *testing.T) (*testpg.Cluster, string, *teamClone) {
	t.Helper()
	testrace.Skip(t, "drives separate processes")
	pg := testpg.Own(t)
	url := pg.Database(t)
	a := newTeamRepo(t, testbin.Build(t))("a", "ana@example.com")
	a.must("team", "init", url)
	return pg, url, a
}
