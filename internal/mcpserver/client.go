package mcpserver

import (
	"context"
	"strings"

	"github.com/freshctx/freshctx/internal/readcache"
)

// Codex keeps the head and the tail of a tool result over its budget and
// drops the middle before the model sees it (0.169.0, with a model it has
// no metadata for, sent 12 KB of a 46 KB read; tool_output_token_limit in
// its config sets the budget). A read the
// model got only part of must never count as delivered, so reads served to
// Codex stay well under that budget: line numbers add 7 bytes a line.
const (
	codexMaxLines = 250
	codexMaxBytes = 6000
)

// clientKey carries the clientInfo name the session was initialized with.
type clientKey struct{}

// readService is the read cache with the output limits of the client that
// made the call: Codex's are lower (above); every other client gets the
// defaults, the limits of a plain agent read tool.
func (s *Server) readService(ctx context.Context) *readcache.Service {
	client, _ := ctx.Value(clientKey{}).(string)
	if !strings.Contains(strings.ToLower(client), "codex") {
		return s.readcache
	}
	rc := *s.readcache
	rc.MaxLines, rc.MaxBytes = codexMaxLines, codexMaxBytes
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
