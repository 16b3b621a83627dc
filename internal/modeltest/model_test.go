package modeltest

import (
	"flag"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/freshctx/freshctx/internal/testrace"
	"pgregory.net/rapid"
)

// stepsPerRun is rapid's average number of actions in one run (one
// repository); the number of runs makes up the total.
const stepsPerRun = 60

// fixedSeed starts the runs CI repeats identically.
const fixedSeed = 20261122

// TestModelNeverWrong applies random file operations (edits, same-size
// edits with the mtime put back, touches both ways, chmod, deletes, renames,
// replacement by a directory or a symlink, CRLF and LF, empty, binary and
// larger files) and git operations (commit, amend, checkout and back,
// switching branches, stash, reset --hard, merge, a merge left in
// conflict, rebase, a rebase left stopped on a conflict, mv,
// assume-unchanged, skip-worktree, rm --cached and ignore, a nested
// repository), interleaved with every
// feature: records (capture, a run that rewrites its file, show),
// artifacts (put, get), the registry (sync, verify, summarize) and the read
// cache (whole and range reads, reads a client cancelled after their answer
// went out, compaction). Every "nothing changed"
// answer is checked against the bytes on disk, and every diff is applied to
// exactly what the model was shown.
//
// It runs FRESHCTX_MODEL_STEPS steps in all (3,000 by default, 600 with
// -short, 300 under the race detector) from a fixed seed, then a quarter as many from a random seed that
// it prints. A failure prints the seed and rapid's shrunk list of steps;
// -rapid.seed=N reproduces one run.
func TestModelNeverWrong(t *testing.T) {
	total := modelSteps(3000, 1)
	if s := askedSeed(); s != "" {
		t.Logf("model: replaying -rapid.seed=%s", s)
		runModel(t, 1, 0)
		return
	}
	var done atomic.Int64
	seed := uint64(fixedSeed)
	for done.Load() < int64(total) {
		runs := max(1, (total-int(done.Load()))/stepsPerRun+1)
		n := runModel(t, runs, seed)
		if n == 0 {
			t.Fatalf("model: %d runs from seed %d executed no step", runs, seed)
		}
		done.Add(n)
		seed += uint64(runs)
	}
	t.Logf("model: %d steps from fixed seeds %d..%d", done.Load(), fixedSeed, seed-1)
	random := rand.Uint64()
	t.Logf("model: random seed %d (rerun with -rapid.seed=%d)", random, random)
	n := runModel(t, max(1, total/4/stepsPerRun), random)
	t.Logf("model: %d steps from the random seed", n)
}

// runModel runs rapid with the given number of runs from seed (0: the
// -rapid.seed flag) and returns the steps it executed.
func runModel(t *testing.T, runs int, seed uint64) int64 {
	return runModelOf(t, runs, seed, nil, nil)
}

// runModelOf is runModel with only the named actions, where only is not
// nil, and with what setup changes in each run's world.
func runModelOf(t *testing.T, runs int, seed uint64, only []string, setup func(*world)) int64 {
	checks, perRun := runs, stepsPerRun
	if testing.Short() { // rapid runs a fifth of the checks and half the steps
		checks, perRun = runs*5, stepsPerRun*2
	}
	setFlag(t, "rapid.checks", strconv.Itoa(checks))
	setFlag(t, "rapid.steps", strconv.Itoa(perRun))
	setFlag(t, "rapid.nofailfile", "true") // the seed it prints reproduces a failure
	if seed != 0 {
		setFlag(t, "rapid.seed", strconv.FormatUint(seed, 10))
	}
	var steps atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		dir, err := os.MkdirTemp(t.TempDir(), "model")
		if err != nil {
			rt.Fatal(err)
		}
		w := newWorld(rt, dir)
		if setup != nil {
			setup(w)
		}
		defer w.st.Close()
		actions := map[string]func(*rapid.T){}
		for _, ops := range []map[string]func(*rapid.T){w.fileOps(), w.gitOps(), w.featureOps()} {
			for name, op := range ops {
				if only != nil && !slices.Contains(only, name) {
					continue
				}
				actions[name] = func(t *rapid.T) {
					steps.Add(1)
					op(t)
				}
			}
		}
		if only != nil && len(actions) != len(only) {
			rt.Fatalf("model: %d of the %d actions asked for exist", len(actions), len(only))
		}
		maps.Copy(actions, map[string]func(*rapid.T){"": func(*rapid.T) {}})
		rt.Repeat(actions)
		// Whatever happened, every answer must hold at the end.
		w.checkRecords()
		w.checkArtifacts()
		w.sync()
	})
	return steps.Load()
}

// modelSteps is a model test's steps: n, a fifth of it with -short, a
// tenth under the race detector, or FRESHCTX_MODEL_STEPS divided by share.
func modelSteps(n, share int) int {
	if v, err := strconv.Atoi(os.Getenv("FRESHCTX_MODEL_STEPS")); err == nil && v > 0 {
		return max(1, v/share)
	}
	switch {
	case testrace.Enabled:
		return n / 10
	case testing.Short():
		return n / 5
	}
	return n
}

// askedSeed is the -rapid.seed the test was run with ("" for none), read
// before runModel sets the flag for its own runs.
var askedSeed = sync.OnceValue(func() string {
	if f := flag.Lookup("rapid.seed"); f != nil && f.Value.String() != "0" {
		return f.Value.String()
	}
	return ""
})

func setFlag(t *testing.T, name, value string) {
	if err := flag.Set(name, value); err != nil {
		t.Fatalf("set -%s: %v", name, err)
	}
}

// atOnce are the actions of an agent whose tool calls run at once: reads
// answered and delivered later in any order or cancelled while they wait,
// the model's own edits and reads freshctx cannot vouch for coming
// between, rewinds and forks of its session, and files changed and put
// back by others. Compaction, which erases everything, is left to
// TestModelNeverWrong.
var atOnce = []string{
	"read", "read again", "read, delivered later", "deliver a waiting read", "cancel a waiting read",
	"read cancelled", "the model edits a file", "forget a file", "write", "undo", "same size, mtime kept",
	"rewind", "fork", "refresh",
}

// atOnceFound are random seeds of TestReadModelAtOnce that once failed,
// replayed first: 1085203647961994250 found the model, not freshctx,
// wrong (a refresh of a line a range read of a later version had added
// past the file the model held whole made the model forget it held that
// file, and freshctx's diff from it was judged wrong).
var atOnceFound = []uint64{1085203647961994250}

// TestReadModelAtOnce runs the model with only the read cache's actions
// (atOnce), so that the sequences where a change comes between a read's
// answer and its delivery, and a file is put back as that read showed it,
// come often: every answer is judged as TestModelNeverWrong judges it,
// against the bytes and what the model holds, which is what the answers
// delivered and the changes made show, in the order they were made.
// It runs 4,000 steps from a fixed seed (800 with -short, 400 under the
// race detector; FRESHCTX_MODEL_STEPS sets a third of the model's), then a
// quarter as many from a random seed it prints; -rapid.seed=N replays one
// run.
func TestReadModelAtOnce(t *testing.T) {
	total := modelSteps(4000, 3)
	few := []string{"a.txt", "dir/c.txt"}
	setup := func(w *world) { w.texts, w.files, w.refs = longer, few, few }
	if s := askedSeed(); s != "" {
		t.Logf("read model: replaying -rapid.seed=%s", s)
		runModelOf(t, 1, 0, atOnce, setup)
		return
	}
	for _, seed := range atOnceFound {
		runModelOf(t, 1, seed, atOnce, setup)
	}
	n := runModelOf(t, max(1, total/stepsPerRun), fixedSeed, atOnce, setup)
	t.Logf("read model: %d steps from the fixed seed %d", n, fixedSeed)
	random := rand.Uint64()
	t.Logf("read model: random seed %d (rerun with -rapid.seed=%d)", random, random)
	n = runModelOf(t, max(1, total/4/stepsPerRun), random, atOnce, setup)
	t.Logf("read model: %d steps from the random seed", n)
}
