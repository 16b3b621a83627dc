package integrate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/registry"
)

// HookInput is the part of Claude Code's hook JSON freshctx uses.
type HookInput struct {
	Event     string `json:"hook_event_name"`
	SessionID string `json:"session_id"`
	// Source of SessionStart: startup, resume, clear or compact.
	Source string `json:"source"`
	// Trigger of PreCompact: manual or auto.
	Trigger string `json:"trigger"`
}

// HookServices are what a hook may call.
type HookServices struct {
	Registry  *registry.Service
	ReadCache *readcache.Service
}

// ClaudeHook answers one Claude Code hook: a new session syncs the
// registry; a compaction (PreCompact, or SessionStart from compact) records
// a compaction barrier in every session the MCP servers serve. The text
// returned is what a SessionStart hook adds to the model's context.
func ClaudeHook(ctx context.Context, in io.Reader, svc HookServices) (string, error) {
	var h HookInput
	if err := json.NewDecoder(in).Decode(&h); err != nil {
		return "", fmt.Errorf("hook input is not JSON: %w", err)
	}
	switch {
	case h.Event == "PreCompact" || (h.Event == "SessionStart" && h.Source == "compact"):
		done, err := svc.ReadCache.CompactLive(ctx)
		if err != nil {
			return "", err
		}
		if h.Event == "PreCompact" {
			return "", nil
		}
		return fmt.Sprintf("freshctx: context compacted; reads start fresh (%s)\n", strings.Join(done, ", ")), nil
	case h.Event == "SessionStart":
		res, err := svc.Registry.Sync(ctx)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("freshctx: file registry %s · %d files · %d changed, %d new, %d missing since last verified\n",
			res.Action, res.Files, res.Mismatch, res.New, res.Missing), nil
	}
	return "", nil
}
