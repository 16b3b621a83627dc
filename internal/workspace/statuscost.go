package workspace

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"time"
)

// StatusCost is what the status a run asks for costs in this repository.
type StatusCost struct {
	// Took is how long one such status took.
	Took time.Duration
	// UntrackedCache says git answered it from its untracked cache
	// (core.untrackedCache, or feature.manyFiles) instead of walking the
	// tree for untracked files.
	UntrackedCache bool
	// Traced says git wrote the trace UntrackedCache is read from; a git
	// without trace2 (before 2.22) writes none, and then nobody knows.
	Traced bool
}

// MeasureStatus runs the status Status runs as one git, once, with git's trace on:
// git reports its untracked cache's counters (trace2's "opendir" and the
// others of read_directory) only when the cache answered. For doctor; a
// run never pays for the trace.
func (g *Git) MeasureStatus(ctx context.Context) (StatusCost, error) {
	f, err := os.CreateTemp("", "freshctx-trace2-*.json")
	if err != nil {
		return StatusCost{}, fmt.Errorf("a file for git's trace: %w", err)
	}
	trace := f.Name()
	f.Close()
	defer os.Remove(trace)
	start := time.Now()
	if _, err := execGit(ctx, g.Top, []string{"GIT_TRACE2_EVENT=" + trace, "GIT_TRACE2_EVENT_NESTING=10"},
		g.statusArgs(wholeStatus...)...); err != nil {
		return StatusCost{}, fmt.Errorf("git status: %w", err)
	}
	took := time.Since(start)
	events, err := os.ReadFile(trace)
	if err != nil {
		return StatusCost{}, fmt.Errorf("read git's trace: %w", err)
	}
	return StatusCost{Took: took, Traced: len(events) > 0, UntrackedCache: bytes.Contains(events, []byte(`"key":"opendir"`))}, nil
}
