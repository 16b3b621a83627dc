package doctor

import (
	"context"
	"fmt"
	"time"

	"github.com/freshctx/freshctx/internal/workspace"
)

// slowStatus is how long the status a run waits for may take before
// doctor points at git's untracked cache (a variable for the tests).
var slowStatus = 50 * time.Millisecond

// statusCheck times the git status every run waits for and, where it is
// slow and git keeps no untracked cache, says how to let git keep one: the
// status then skips git's walk of the tree for untracked files.
func statusCheck(ctx context.Context, ws *workspace.Workspace) Check {
	cost, err := ws.Git.MeasureStatus(ctx)
	if err != nil {
		return Check{Name: "git status", Status: Warn, Detail: fmt.Sprintf("could not time the status each run waits for: %v", err)}
	}
	return statusVerdict(cost)
}

// statusVerdict is what statusCheck says of a status that cost so much.
func statusVerdict(cost workspace.StatusCost) Check {
	c := Check{Name: "git status", Status: OK}
	took := cost.Took.Round(100 * time.Microsecond)
	switch {
	case cost.UntrackedCache:
		c.Detail = fmt.Sprintf("each run waits for one status: %s here, answered from git's untracked cache", took)
	case cost.Took < slowStatus || !cost.Traced: // fast, or git does not say whether a cache answered
		c.Detail = fmt.Sprintf("each run waits for one status: %s here", took)
	default:
		c.Status = Warn
		c.Detail = fmt.Sprintf("each run waits for one status: %s here, and git keeps no untracked cache; "+
			"where `git update-index --test-untracked-cache` passes, `git config core.untrackedCache true` "+
			"and one `git status` let git skip its walk for untracked files, in your own status too", took)
	}
	return c
}
