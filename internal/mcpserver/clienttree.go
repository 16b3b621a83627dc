package mcpserver

import (
	"context"
	"errors"

	"github.com/freshctx/freshctx/internal/readcache"
)

// clientTree is what the extension of a client that keeps its own
// conversation tree (pi) adds to read and session_refresh, out of the
// schema like the session: where on its tree the model stands, so the
// session follows before the call (readcache.Follow), and the key of the
// tool call the answer goes to (readcache.ReadRequest.ClientKey).
type clientTree struct {
	// Follow asks the session to follow the client's tree; Anchor is the
	// key of the latest tool call on the model's branch that freshctx
	// recorded, in session From (this one, or the one it was forked
	// from); "" means nothing recorded since the branch's last barrier.
	Follow bool
	From   string
	Anchor string
	// Forget and EditedPaths name files the model was given or changed
	// after the anchor without freshctx recording it (a call that failed,
	// a sibling call that ran beside it).
	Forget      []string
	EditedPaths []string `json:"edited_paths"`
	Key         string
}

func (c clientTree) follow(ctx context.Context, rc *readcache.Service, session string) error {
	if !c.Follow {
		return nil
	}
	from := c.From
	if from == "" {
		from = session
	}
	if _, err := rc.Follow(ctx, session, from, c.Anchor); err != nil {
		return err
	}
	var errs []error
	for _, p := range c.Forget {
		errs = append(errs, rc.Forget(ctx, session, p))
	}
	for _, p := range c.EditedPaths {
		errs = append(errs, rc.Edited(ctx, session, p))
	}
	return errors.Join(errs...)
}
