package main

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testpg"
	"github.com/freshctx/freshctx/internal/testrace"
)

// lockWords are what a lock error would say: SQLite's, PostgreSQL's
// (deadlock_detected, lock_not_available) or a publisher's.
var lockWords = []string{"database is locked", "SQLITE_BUSY", "deadlock detected", "could not obtain lock", "another freshctx"}

// TestTeamUnderLoad: eight processes in each of two clones run failing
// commands (each record queued and published in the background) and
// recall the team's records, for 10 s (5 s with -short,
// FRESHCTX_LOAD_SECONDS to choose; the run is 30 s): every command
// does its work, no lock error surfaces, and in the end the team store
// holds every record once.
func TestTeamUnderLoad(t *testing.T) {
	testrace.Skip(t, "drives separate processes")
	pg := testpg.Own(t)
	url := pg.Database(t)
	bin := testbin.Build(t)
	clone := newTeamRepo(t, bin)
	clones := []*teamClone{clone("a", "ana@example.com"), clone("b", "bo@example.com")}
	clones[0].must("team", "init", url)
	clones[1].must("config", "team.url", url)
	for _, c := range clones {
		c.must("config", "team.publish", "all")
	}
	d := loadDuration(10*time.Second, 5*time.Second)
	var mu sync.Mutex
	var problems []string
	made := map[string]bool{}
	problem := func(format string, args ...any) {
		mu.Lock()
		problems = append(problems, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for ci, c := range clones {
		for p := range 8 {
			wg.Go(func() {
				for i := 0; time.Now().Before(end); i++ {
					if i%3 == 2 {
						if out, err := c.freshctx("recall", "--team", "FAIL"); err != nil || hasLockWords(out) {
							problem("recall in clone %d: %v\n%s", ci, err, out)
						}
						continue
					}
					tag := fmt.Sprintf("c%d-p%d-i%d", ci, p, i)
					out, err := c.freshctx("run", "--", "sh", "-c", "echo 'notes.txt:3: FAIL "+tag+"'; exit 1")
					var exit *exec.ExitError
					if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(out, tag) || hasLockWords(out) {
						problem("run %s: %v\n%s", tag, err, out)
						continue
					}
					mu.Lock()
					made[tag] = true
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if len(problems) > 0 {
		t.Fatalf("%d of the commands failed; the first:\n%s", len(problems), problems[0])
	}
	for _, c := range clones {
		if out := c.must("team", "publish"); !strings.Contains(out, "0 waiting") {
			t.Fatalf("the last publish: %s", out)
		}
	}
	shared := map[string]int{}
	commands := pg.Strings(t, url, `SELECT command FROM team_records`)
	for _, c := range commands {
		i := strings.Index(c, "FAIL c")
		if i < 0 {
			t.Fatalf("a shared record not made here: %q", c)
		}
		tag := strings.FieldsFunc(c[i+5:], func(r rune) bool { return r == '\'' || r == ' ' || r == ';' })[0]
		shared[tag]++
	}
	for tag := range made {
		if shared[tag] != 1 {
			t.Errorf("record %s is in the team store %d times, want once", tag, shared[tag])
		}
	}
	if len(commands) != len(made) {
		t.Errorf("the team store holds %d records, the clones made %d", len(commands), len(made))
	}
	t.Logf("%d runs and their records, %s, 16 processes", len(made), d)
}

func hasLockWords(out string) bool {
	for _, w := range lockWords {
		if strings.Contains(out, w) {
			return true
		}
	}
	return false
}
