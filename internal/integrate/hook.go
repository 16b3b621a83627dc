package integrate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/freshctx/freshctx/internal/readcache"
)

// HookInput is the part of Claude Code's hook JSON freshctx uses.
type HookInput struct {
	Event     string `json:"hook_event_name"`
	SessionID string `json:"session_id"`
	// Cwd is the conversation's working directory: the project.
	Cwd string `json:"cwd"`
	// Source of SessionStart: startup, resume, clear or compact.
	Source string `json:"source"`
	// Trigger of PreCompact: manual or auto.
	Trigger string `json:"trigger"`
	// PostToolUse: the tool, what it was asked and what it answered.
	ToolName     string          `json:"tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response"`
}

// ParseHook reads a hook's input.
func ParseHook(in io.Reader) (*HookInput, error) {
	var h HookInput
	if err := json.NewDecoder(in).Decode(&h); err != nil {
		return nil, fmt.Errorf("hook input is not JSON: %w", err)
	}
	return &h, nil
}

// HookServices are what a hook may call.
type HookServices struct {
	ReadCache *readcache.Service
	// SyncRegistry starts a registry sync that goes on after the hook
	// returns; nil skips it.
	SyncRegistry func() error
	// RunCommands are the Bash command prefixes run through freshctx run.
	RunCommands []string
}

// ClaudeSession is the read session of one Claude Code conversation.
func ClaudeSession(id string) string {
	clean := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return -1
	}, id)
	return "claude-" + clean
}

// ClaudeHook answers one Claude Code hook. Every context reset — SessionStart
// from startup, resume, clear or compact, and PreCompact — puts a barrier
// in the conversation's own read session (keyed by its session_id) and in
// every session a running MCP server serves (a server cannot tell which
// conversation it serves: a barrier costs at most a re-read, a missing one
// a wrong "unchanged"). SessionStart also starts a registry sync in the
// background and returns at once. The text returned is what SessionStart
// adds to the model's context.
func ClaudeHook(ctx context.Context, h *HookInput, svc HookServices) (string, error) {
	if h.Event == "PostToolUse" && h.ToolName == "Read" {
		return claudeRead(ctx, h, svc.ReadCache)
	}
	if h.Event == "PreToolUse" && h.ToolName == "Bash" {
		return claudeBash(h, svc.RunCommands)
	}
	if h.Event != "SessionStart" && h.Event != "PreCompact" {
		return "", nil
	}
	if h.SessionID != "" {
		if _, err := svc.ReadCache.Compact(ctx, ClaudeSession(h.SessionID)); err != nil {
			return "", err
		}
	}
	if _, err := svc.ReadCache.CompactLive(ctx); err != nil {
		return "", err
	}
	if h.Event == "PreCompact" {
		return "", nil
	}
	if svc.SyncRegistry != nil {
		if err := svc.SyncRegistry(); err != nil {
			return "", err
		}
	}
	if h.Source == "startup" {
		return "", nil
	}
	return "freshctx: context reset (" + h.Source + "); reads start fresh\n", nil
}
