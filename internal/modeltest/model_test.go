package modeltest

import (
	"flag"
	"maps"
	"math/rand/v2"
	"os"
	"strconv"
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
	total := 3000
	switch {
	case testrace.Enabled:
		total = 300
	case testing.Short():
		total = 600
	}
	if v, err := strconv.Atoi(os.Getenv("FRESHCTX_MODEL_STEPS")); err == nil && v > 0 {
		total = v
	}
	if f := flag.Lookup("rapid.seed"); f != nil && f.Value.String() != "0" {
		t.Logf("model: replaying -rapid.seed=%s", f.Value.String())
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
		defer w.st.Close()
		actions := map[string]func(*rapid.T){}
		for _, ops := range []map[string]func(*rapid.T){w.fileOps(), w.gitOps(), w.featureOps()} {
			for name, op := range ops {
				actions[name] = func(t *rapid.T) {
					steps.Add(1)
					op(t)
				}
			}
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

func setFlag(t *testing.T, name, value string) {
	if err := flag.Set(name, value); err != nil {
		t.Fatalf("set -%s: %v", name, err)
	}
}
