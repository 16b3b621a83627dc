package doctor

import (
	"context"
	"errors"
	"fmt"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/workspace"
)

// Status of one check.
type Status string

// The statuses, from best to worst.
const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
)

// Check is one line of the report.
type Check struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	// Fixed says what --fix changed, empty when nothing.
	Fixed string `json:"fixed,omitempty"`
}

// Report is what doctor found.
type Report struct {
	Store  string  `json:"store"`
	Fix    bool    `json:"fix"`
	Checks []Check `json:"checks"`
	// OK is false when a check failed (after fixing, with fix).
	OK bool `json:"ok"`
}

func (r *Report) add(c Check) {
	r.Checks = append(r.Checks, c)
	if c.Status == Fail {
		r.OK = false
	}
}

// Options of Run. Store is nil when it could not be opened; OpenErr says
// why (store.ErrNoStore when there is none yet).
type Options struct {
	Path    string
	Store   *store.Store
	OpenErr error
	WS      *workspace.Workspace
	Fix     bool
}

// Run performs every check, fixing what it can with Fix.
func Run(ctx context.Context, opt Options) *Report {
	r := &Report{Store: opt.Path, Fix: opt.Fix, OK: true}
	if opt.Store == nil {
		r.add(openCheck(opt.OpenErr))
		r.addGit(ctx, opt.WS)
		return r
	}
	st := opt.Store
	r.add(integrityCheck(ctx, st))
	r.add(schemaCheck(ctx, st))
	files, c := blobCheck(ctx, st, opt.Fix)
	r.add(c)
	if files != nil {
		r.add(missingCheck(ctx, st, files.Missing, opt.Fix))
	}
	r.add(permissionCheck(st, opt.Fix))
	r.addGit(ctx, opt.WS)
	return r
}

// addGit adds the git check and, in a work tree git answers for, the
// status check.
func (r *Report) addGit(ctx context.Context, ws *workspace.Workspace) {
	c := gitCheck(ctx, ws)
	r.add(c)
	if c.Status == OK && ws != nil && ws.Git != nil {
		r.add(statusCheck(ctx, ws))
	}
}

func openCheck(err error) Check {
	c := Check{Name: "store", Status: Fail, Detail: fmt.Sprint(err)}
	if err == nil || errors.Is(err, store.ErrNoStore) {
		c.Status, c.Detail = OK, "no store yet: one is made by the first run, capture, read or registry command"
	}
	return c
}
