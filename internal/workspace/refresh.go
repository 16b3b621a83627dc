package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Git runs with GIT_OPTIONAL_LOCKS=0 so that a status never holds the
// index lock while the user's own git command wants it. The cost: status
// never writes back the stat data it refreshed, so an index whose stat data
// is stale (a copied or restored repository, a checkout by another tool)
// makes every status read and hash every file again, ten times the cost of
// one on a fresh index. A whole-tree status says so in git's trace (the
// entries it read again: indextrace.go), and freshctx then refreshes the
// index once, as the user's own `git status` would. Where git writes no
// such trace, freshctx goes by the clock: a whole-tree status that was
// slow against the last one measured after a refresh.
//
// The record is one line in <git dir>/freshctx/status: the milliseconds of
// the status run right after the last refresh, and when that was (Unix
// seconds). A baseline measured while the machine was busy would hide a
// stale index for good, so one older than baselineTrust no longer spares a
// slow status its refresh: a repository that is merely slow pays at most
// one needless refresh (about one status) an hour.

// refreshFloor is the status time under which nothing is checked: the
// fast path costs nothing.
var refreshFloor = 50 * time.Millisecond

// baselineTrust is how long a baseline is trusted to say "this repository
// is this slow".
const baselineTrust = time.Hour

func statusFile(gitDir string) string { return filepath.Join(gitDir, "freshctx", "status") }

// refreshIfSlow refreshes the index when a whole-tree status took long
// against the baseline, and says whether it did: then the caller runs the
// status again and records how long it took with recordBaseline.
func (g *Git) refreshIfSlow(ctx context.Context, took time.Duration) (gitDir string, refreshed bool) {
	if took < refreshFloor {
		return "", false
	}
	dirs, err := g.dirs(ctx)
	if err != nil {
		return "", false
	}
	gitDir = dirs.dir
	if base, at, ok := readBaseline(gitDir); ok && g.now().Sub(at) < baselineTrust {
		if took <= 2*base+refreshFloor/2 {
			return "", false // as slow as this repository is
		}
	}
	// The lock is taken for the refresh only; if the user's git holds it,
	// the refresh fails and the next slow status tries again. With -q a
	// file that really changed does not fail it (TestStaleIndexIsRefreshed).
	if _, err := g.Run(ctx, g.Top, "update-index", "-q", "--refresh"); err != nil {
		return "", false
	}
	return gitDir, true
}

// recordBaseline keeps how long a status took right after a refresh.
func (g *Git) recordBaseline(gitDir string, took time.Duration) {
	replaceFile(statusFile(gitDir), fmt.Sprintf("%d %d\n", took.Milliseconds(), g.now().Unix()))
}

// readBaseline reads the baseline and when it was measured; a line of the
// first form (no time) reads as measured long ago.
func readBaseline(gitDir string) (took time.Duration, at time.Time, ok bool) {
	line, err := os.ReadFile(statusFile(gitDir))
	if err != nil {
		return 0, time.Time{}, false
	}
	f := strings.Fields(string(line))
	if len(f) == 0 || len(f) > 2 {
		return 0, time.Time{}, false
	}
	ms, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || ms < 0 {
		return 0, time.Time{}, false
	}
	if len(f) == 2 {
		if sec, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			at = time.Unix(sec, 0)
		}
	}
	return time.Duration(ms) * time.Millisecond, at, true
}
