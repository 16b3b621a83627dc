package mcpserver

import (
	"context"

	"github.com/freshctx/freshctx/internal/integrate"

	"github.com/freshctx/freshctx/internal/readcache"
)

// clientKey carries the clientInfo name the session was initialized with.
type clientKey struct{}

// readService is the read cache with the output limits of the agent whose
// client made the call (integrate.Agents: Codex's are lower); every other
// client gets the defaults, the limits of a plain agent read tool.
func (s *Server) readService(ctx context.Context) *readcache.Service {
	client, _ := ctx.Value(clientKey{}).(string)
	agent, ok := integrate.ForClient(client)
	if !ok || agent.MaxLines == 0 {
		return s.readcache
	}
	rc := *s.readcache
	rc.MaxLines, rc.MaxBytes = agent.MaxLines, agent.MaxBytes
	return &rc
}

// readSession is the read session a read call reads in. A note
// ([unchanged …]) is right only while every context reset of the
// conversation reaches the session as a barrier, and a server cannot see
// its client's resets: the agent's hooks can. So a call reads with trust
// only in a session something that sees the resets names: the one the
// agent's PreToolUse hook put in the call (Claude Code and Codex, once
// freshctx init installed the hooks and the user trusted them), or the one
// the operator named with --session (Options.Session), who then owns its
// barriers. Every other call — a client without hooks, hooks not yet
// trusted, a Claude Code subagent's call the hook did not name — reads in
// the connection's own session after a barrier: content every time, or a
// range of it, never a note, never a diff.
func (s *Server) readSession(ctx context.Context, named string) (string, error) {
	if named != "" {
		return named, nil
	}
	if s.opt.Session != "" {
		return s.session, nil
	}
	if _, err := s.readcache.Compact(ctx, s.session); err != nil {
		return "", err
	}
	return s.session, nil
}
