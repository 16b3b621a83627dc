package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/testpg"
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
		Hits []struct {
			Command   string
			Author    string
			Freshness struct{ Label string }
		}
	}
	if err := json.Unmarshal([]byte(c.must("recall", "--team", "--json", query)), &res); err != nil {
		c.t.Fatal(err)
	}
	return res.Hits
}

// TestTeamRecallIsFreshOnlyForMyBytes: a failing go test run in clone A is
// found by recall --team in clone B at the same commit, fresh; after B
// edits the file it names it is stale_changed; in clone C, whose copy of
// that file differs, it is never fresh.
func TestTeamRecallIsFreshOnlyForMyBytes(t *testing.T) {
	skipUnderRace(t)
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
