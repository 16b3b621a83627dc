package workspace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testgit"
)

// TestStaleIndexIsRefreshed copies a repository, which leaves every index
// entry's stat data stale: git status then hashes every file on every call
// and, with optional locks off, never writes the refresh back. One status
// through freshctx refreshes the index.
func TestStaleIndexIsRefreshed(t *testing.T) {
	src := testgit.New(t)
	for i := range 200 {
		src.Write(fmt.Sprintf("pkg%d/f%d.go", i%10, i), fmt.Sprintf("package p\nvar x%d = %d\n", i, i))
	}
	src.Commit("many files")
	dst := filepath.Join(t.TempDir(), "copy")
	if out, err := exec.Command("cp", "-r", src.Dir, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	copied := testgit.Plain(t, dst)
	if stale := copied.Git("diff-files", "--name-only"); strings.Count(stale, "\n") < 150 {
		t.Fatalf("the copy's index should be stale, diff-files lists %d files", strings.Count(stale, "\n"))
	}
	// One file really changed: the refresh must still cover every other
	// entry and leave that one for status to report.
	copied.Write("pkg2/f2.go", "package p\n// changed\n")
	defer func(f time.Duration) { refreshFloor = f }(refreshFloor)
	refreshFloor = 0 // every status counts as slow the first time

	g := newGit(dst, "")
	var mu sync.Mutex // a status may run two gits at once
	var calls []string
	g.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		mu.Lock()
		calls = append(calls, args[0])
		mu.Unlock()
		return ExecGit(ctx, dir, args...)
	}
	st, err := g.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if e, listed := st.Entry("pkg1/f1.go"); listed {
		t.Fatalf("an unchanged file of the copy is listed: %+v", e)
	}
	if stale := strings.TrimSpace(copied.Git("diff-files", "--name-only")); stale != "pkg2/f2.go" {
		t.Fatalf("after a status diff-files lists %q, want only the changed pkg2/f2.go", stale)
	}
	if _, listed := st.Entry("pkg2/f2.go"); !listed {
		t.Fatal("the changed file is not listed")
	}
	if n := count(calls, "update-index"); n != 1 {
		t.Fatalf("update-index ran %d times, want 1 (calls %v)", n, calls)
	}
	// The index said it was stale: no clock, no baseline.
	if _, err := os.Stat(statusFile(filepath.Join(dst, ".git"))); err == nil {
		t.Fatal("a baseline was kept for a refresh the index decided")
	}
	calls = nil
	if _, err := g.Status(context.Background()); err != nil || count(calls, "update-index") != 0 {
		t.Fatalf("a status of the refreshed index refreshed again: %v (calls %v)", err, calls)
	}
}

// TestSlowStatusOfAFreshIndexRefreshesNothing: on a busy machine every
// status is slow; the index, not the clock, says whether to refresh, and a
// fresh one is left alone.
func TestSlowStatusOfAFreshIndexRefreshesNothing(t *testing.T) {
	r := testgit.New(t)
	for i := range 200 {
		r.Write(fmt.Sprintf("f%d.go", i), fmt.Sprintf("package p\nvar x%d = %d\n", i, i))
	}
	r.Commit("many files")
	time.Sleep(1100 * time.Millisecond) // past racy git's second: the index's stat data settles
	r.Git("update-index", "--refresh")
	var mu sync.Mutex // a status may run two gits at once
	var now time.Time
	g := newGit(r.Dir, "")
	g.Now = func() time.Time { // every status takes a second
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
	var calls []string
	g.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		mu.Lock()
		calls = append(calls, args[0])
		mu.Unlock()
		return ExecGit(ctx, dir, args...)
	}
	r.Write("f3.go", "package p\n// changed\n")
	for range 3 {
		if _, err := g.Status(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := g.StatusFiles(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if n := count(calls, "update-index"); n != 0 {
		t.Fatalf("update-index ran %d times for slow statuses of a fresh index (calls %v)", n, calls)
	}
}

// TestStaleIndexFromTheTrace reads git's trace2 counts: entries read again
// and not changed make an index stale.
func TestStaleIndexFromTheTrace(t *testing.T) {
	ev := func(n int) string {
		return fmt.Sprintf(`{"event":"data","category":"index","key":"refresh/sum_scan","value":"%d"}`+"\n", n)
	}
	changed := func(n int) []byte {
		var b []byte
		for i := range n {
			b = fmt.Appendf(b, "1 .M N... 100644 100644 100644 a a f%d.go\x00", i)
		}
		return append([]byte("# branch.oid abc\x00"), b...)
	}
	for _, c := range []struct {
		name         string
		trace        string
		status       []byte
		stale, known bool
	}{
		{"no trace", "", nil, false, false},
		{"a trace without the count", `{"event":"start"}` + "\n", nil, false, false},
		{"every entry read again", ev(300), changed(1), true, true},
		{"read again because changed", ev(150), changed(150), false, true},
		{"a few stale entries", ev(99), nil, false, true},
		{"counts summed over refreshes", ev(60) + ev(60), changed(10), true, true},
	} {
		stale, known := staleIndex([]byte(c.trace), c.status)
		if stale != c.stale || known != c.known {
			t.Errorf("%s: stale %v known %v, want %v %v", c.name, stale, known, c.stale, c.known)
		}
	}
}

// TestRefreshOnlyWhenSlowerThanTheBaseline drives the rule with a clock
// that makes each status take as long as the test says.
func TestRefreshOnlyWhenSlowerThanTheBaseline(t *testing.T) {
	gitDir := t.TempDir()
	var now time.Time
	var durations []time.Duration // one per status run
	var calls []string
	g := &Git{Top: "/repo", Now: func() time.Time { return now }}
	g.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		calls = append(calls, args[0])
		switch {
		case slices.Contains(args, "status"):
			now = now.Add(durations[0])
			durations = durations[1:]
			return nil, nil
		case args[0] == "rev-parse": // --git-dir --git-common-dir
			return []byte(gitDir + "\n" + gitDir + "\n"), nil
		}
		return nil, nil
	}
	ms := time.Millisecond
	for _, step := range []struct {
		name     string
		wait     time.Duration // before the status
		took     []time.Duration
		refresh  bool
		baseline string
	}{
		{"fast: nothing checked", 0, []time.Duration{10 * ms}, false, ""},
		{"slow, no baseline: refresh and measure again", 0, []time.Duration{400 * ms, 80 * ms}, true, "80"},
		{"as slow as the baseline allows", 0, []time.Duration{150 * ms}, false, "80"},
		{"stale again", 0, []time.Duration{500 * ms, 90 * ms}, true, "90"},
		{"fast again", 0, []time.Duration{20 * ms}, false, "90"},
		{"a baseline measured while the machine was busy", 0, []time.Duration{900 * ms, 600 * ms}, true, "600"},
		{"hides a stale index while it is trusted", 30 * time.Minute, []time.Duration{700 * ms}, false, "600"},
		{"but not once it is an hour old", time.Hour, []time.Duration{700 * ms, 60 * ms}, true, "60"},
	} {
		now = now.Add(step.wait)
		calls, durations = nil, step.took
		if _, err := g.StatusFiles(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := count(calls, "update-index") == 1; got != step.refresh {
			t.Fatalf("%s: refreshed %v, want %v (calls %v)", step.name, got, step.refresh, calls)
		}
		if len(durations) != 0 {
			t.Fatalf("%s: %d status runs left over", step.name, len(durations))
		}
		got := ""
		if base, _, ok := readBaseline(gitDir); ok {
			got = strconv.FormatInt(base.Milliseconds(), 10)
		}
		if got != step.baseline {
			t.Fatalf("%s: baseline %q, want %q", step.name, got, step.baseline)
		}
	}
	// A baseline of the first form (no time) no longer spares a status.
	if err := os.WriteFile(statusFile(gitDir), []byte("600\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	calls, durations = nil, []time.Duration{700 * ms, 60 * ms}
	if _, err := g.StatusFiles(context.Background()); err != nil || count(calls, "update-index") != 1 {
		t.Fatalf("old baseline line: refresh calls %v, %v; want one", calls, err)
	}
}

func count(calls []string, name string) int {
	n := 0
	for _, c := range calls {
		if c == name {
			n++
		}
	}
	return n
}

// TestStartedStatusRefreshesOnlyWhenWaitedFor: a status started beside a
// command never takes the index lock while it runs (the command may be
// running git). A slow one the caller had to wait for has its refresh made
// after the wait, once, and the status it read stands; one that had ended
// when it was waited for cost nothing and refreshes nothing. The clock is
// the test's: it moves only where the test says, so neither case rests on
// the scheduler.
func TestStartedStatusRefreshesOnlyWhenWaitedFor(t *testing.T) {
	for _, c := range []struct {
		name        string
		waitFirst   bool // the caller waits while the status still runs
		wantRefresh int
	}{
		{"waited for", true, 1},
		{"ended before the wait", false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			gitDir := t.TempDir()
			var mu sync.Mutex
			var now time.Time
			var calls []string
			var onNow func() // called, once, at the next reading of the clock
			g := &Git{Top: "/repo", Now: func() time.Time {
				mu.Lock()
				defer mu.Unlock()
				if f := onNow; f != nil {
					onNow = nil
					f()
				}
				return now
			}}
			entered, release := make(chan struct{}), make(chan struct{})
			g.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
				name := args[0]
				if strings.HasPrefix(name, "--") {
					name = args[1]
				}
				mu.Lock()
				calls = append(calls, name)
				mu.Unlock()
				switch name {
				case "status":
					if len(calls) == 1 { // the started one, not the baseline's
						close(entered)
						<-release
						if c.waitFirst {
							mu.Lock()
							now = now.Add(time.Second) // slow against any baseline
							mu.Unlock()
						}
					}
					return []byte("# branch.oid (initial)\x00? b.go\x00"), nil
				case "rev-parse":
					return []byte(gitDir + "\n" + gitDir + "\n"), nil
				}
				return nil, nil
			}
			wait := g.StartStatus(context.Background())
			<-entered // the status has read its start on the clock
			if c.waitFirst {
				// The wait reads the clock as it begins; only then does the
				// status end, a second later by the clock.
				mu.Lock()
				onNow = func() { close(release) }
				mu.Unlock()
			} else {
				// The status took as long, all of it before the wait: the
				// clock stands still while the wait takes its result.
				mu.Lock()
				now = now.Add(time.Second)
				mu.Unlock()
				close(release)
			}
			st, err := wait()
			if err != nil {
				t.Fatal(err)
			}
			if e, ok := st.Entry("b.go"); !ok || !st.Dirty() {
				t.Fatalf("the status read: b.go %+v %v, dirty %v; want b.go untracked, dirty", e, ok, st.Dirty())
			}
			if again, _ := wait(); again != st {
				t.Fatal("waiting again gave another status")
			}
			mu.Lock()
			defer mu.Unlock()
			if n := count(calls, "update-index"); n != c.wantRefresh {
				t.Fatalf("update-index ran %d times, want %d (calls %v)", n, c.wantRefresh, calls)
			}
		})
	}
}

// TestTracedGitNeverWaitsOnWhatItLeftRunning: a process git leaves
// running with the trace's pipe open (an fsmonitor daemon would) does not
// hold up the status once git has exited.
func TestTracedGitNeverWaitsOnWhatItLeftRunning(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.go", "package a\n")
	r.Commit("init")
	// An alias that leaves a sleeper behind holding fd 3 (its output closed).
	r.Git("config", "alias.leave", "!sleep 5 >/dev/null 2>&1 & echo left")
	start := time.Now()
	ctx, _ := withTrace(context.Background())
	out, err := ExecGit(ctx, r.Dir, "leave")
	if err != nil || strings.TrimSpace(string(out)) != "left" {
		t.Fatalf("git leave: %q, %v", out, err)
	}
	if took := time.Since(start); took > 4*time.Second {
		t.Fatalf("the traced git waited %v for the process it left running", took)
	}
}
