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

// readSession is the read session a read call reads in: the one the
// agent's hook named, else the connection's own. Claude Code serves its
// subagents, each with a context of its own, over the one connection, and
// nothing in a call says which context made it; its PreToolUse hook does
// know (freshctx init installs it), and names the session. A Claude Code
// call the hook did not name starts fresh every time (a barrier first), so
// that what one context read is never "unchanged" to another.
func (s *Server) readSession(ctx context.Context, named string) (string, error) {
	if named != "" {
		return named, nil
	}
	client, _ := ctx.Value(clientKey{}).(string)
	if isClaudeCode(client) {
		if _, err := s.readcache.Compact(ctx, s.session); err != nil {
			return "", err
		}
	}
	return s.session, nil
}

// isClaudeCode reports whether an MCP client's name is Claude Code's.
func isClaudeCode(client string) bool {
	return strings.Contains(strings.ToLower(client), "claude-code")
}
