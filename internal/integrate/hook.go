package integrate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/freshctx/freshctx/internal/readcache"
)

// Agent is a coding agent whose hooks freshctx answers.
type Agent string

const (
	ClaudeCodeAgent Agent = "claude-code"
	CodexAgent      Agent = "codex"
	CursorAgent     Agent = "cursor"
	// PiAgent's extension (pi/freshctx.ts) asks the hook only how to route
	// a bash line; its reads go to freshctx mcp.
	PiAgent Agent = "pi"
)

// ParseAgent checks an agent name as the hook command takes it: an agent
// of the table that runs freshctx's hook.
func ParseAgent(name string) (Agent, bool) {
	a, ok := Lookup(name)
	if !ok || !a.Hooked {
		return "", false
	}
	return a.Agent, true
}

// claudeEdits are Claude Code's tools by which the model changes a file.
var claudeEdits = []string{"Edit", "Write", "MultiEdit", "NotebookEdit"}

// claudeEditMatcher is the hook matcher of claudeEdits.
const claudeEditMatcher = "Edit|Write|MultiEdit|NotebookEdit"

func isClaudeEdit(tool string) bool { return slices.Contains(claudeEdits, tool) }

// Session is the read session of one of the agent's conversations, named
// by the agent's own conversation id.
func (a Agent) Session(id string) string {
	info, _ := Lookup(string(a))
	return info.SessionPrefix + nameSafe(id)
}

// endSessions ends the read sessions of a conversation that ended (its
// subagents' too) or of a subagent that stopped: session gc may delete
// them. A conversation resumed later starts with a barrier, and a resumed
// subagent reads afresh.
func endSessions(ctx context.Context, agent Agent, h *HookInput, rc *readcache.Service) error {
	if h.Event == "SubagentStop" {
		if h.AgentID == "" {
			return nil
		}
		return rc.End(ctx, agent.ReadSession(h), "")
	}
	main := agent.Session(h.SessionID)
	return rc.End(ctx, main, main+"-agent-")
}

// ReadSession is the read session of the context a hook fired in: the
// conversation's, or a subagent's own. A subagent (Claude Code's Agent
// tool) has a context of its own, empty when it starts, but its hooks carry
// the conversation's session_id: what a subagent read is not in the main
// context, and what the main context read is not in the subagent's, so
// each subagent gets a session of its own, kept across its resumptions
// (its agent_id stays the same).
func (a Agent) ReadSession(h *HookInput) string {
	s := a.Session(h.SessionID)
	if h.AgentID != "" {
		s += "-agent-" + nameSafe(h.AgentID)
	}
	return s
}

// nameSafe keeps the letters, digits, '-' and '_' of an agent's id.
func nameSafe(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return -1
	}, id)
}

// knownSource is a SessionStart source as the agents name them; anything
// else (an agent's new source, or bytes meant for the terminal) is told as
// "other": the hook's answer never repeats what it was sent.
func knownSource(s string) string {
	switch s {
	case "startup", "resume", "clear", "compact", "fork":
		return s
	}
	return "other"
}

// HookCommand is what the agent's hooks run.
func (a Agent) HookCommand() string { return "freshctx hook " + string(a) }

// eventCommand is the command of the handlers init writes for e: the hook
// command, which Codex's Bash group runs through its prefilter
// (codexBashCommand).
func (a Agent) eventCommand(e hookEvent) string {
	if a == CodexAgent && e == (hookEvent{"PreToolUse", "Bash"}) {
		return codexBashCommand
	}
	return a.HookCommand()
}

// ownCommands are the commands of every handler init writes for the agent
// (eventCommand), the ones init may replace and --remove takes out.
func (a Agent) ownCommands() []string {
	if a == CodexAgent {
		return []string{a.HookCommand(), codexBashCommand}
	}
	return []string{a.HookCommand()}
}

// HookInput is the part of an agent's hook JSON freshctx uses (Claude Code
// and Codex send the same fields).
type HookInput struct {
	Event     string `json:"hook_event_name"`
	SessionID string `json:"session_id"`
	// AgentID is set when the hook fired inside a subagent, whose context
	// is its own (Claude Code: absent on the main thread).
	AgentID string `json:"agent_id"`
	// TranscriptPath is the conversation's transcript (Claude Code's
	// JSONL), read for the resets no hook reports (rewind.go).
	TranscriptPath string `json:"transcript_path"`
	// Cwd is the conversation's working directory: the project.
	Cwd string `json:"cwd"`
	// Source of SessionStart: startup, resume, clear, compact (Codex: fork).
	Source string `json:"source"`
	// PermissionMode is the agent's: default, acceptEdits, plan,
	// bypassPermissions (Codex exec sends bypassPermissions).
	PermissionMode string `json:"permission_mode"`
	// Trigger of PreCompact and PostCompact: manual or auto.
	Trigger string `json:"trigger"`
	// PostToolUse: the tool, what it was asked and what it answered.
	ToolName     string          `json:"tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response"`
}

// RoutesShell reports whether the hook may route a shell command through
// freshctx run (a PreToolUse of Bash): the only hook that needs the run
// commands.
func (h *HookInput) RoutesShell() bool { return h.Event == "PreToolUse" && h.ToolName == "Bash" }

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
	// RunCommands are the Bash command prefixes run through freshctx run;
	// only a hook that routes a shell command (RoutesShell) reads them.
	RunCommands []string
	// ClaudeArgs returns the command line Claude Code was started with,
	// for the permission rules given on it (--allowedTools and the like);
	// nil reads it from the process's ancestors where the system says.
	ClaudeArgs func() []string
	// Self is the freshctx a rewritten command runs: the hook's own
	// executable, since the agent's shell (Codex runs a login shell) may
	// not have the PATH the hook was found on. Empty means "freshctx".
	Self string
}

// Hook answers one of the agent's hooks. Every context reset — SessionStart
// (startup, resume, clear, compact, fork), PreCompact and PostCompact — puts
// a barrier in the context's own read session (ReadSession: the
// conversation's, or a subagent's) and in every session a running MCP
// server serves (a server
// cannot tell which conversation it serves: a barrier costs at most a
// re-read, a missing one a wrong "unchanged"). SessionStart also starts a
// registry sync in the background and returns at once. PostToolUse on
// Claude Code's Read goes through the read cache, and on its Edit, Write,
// MultiEdit and NotebookEdit marks the file's picture edited; PreToolUse on Bash routes
// tests and builds through freshctx run. What is returned is the hook's
// stdout.
func Hook(ctx context.Context, agent Agent, h *HookInput, svc HookServices) (string, error) {
	claudeReads := agent == ClaudeCodeAgent && (h.Event == "PostToolUse" && h.ToolName == "Read" ||
		h.Event == "PreToolUse" && h.ToolName == MCPReadTool)
	if claudeReads && h.SessionID != "" {
		if err := leafMoved(ctx, agent.Session(h.SessionID), h.TranscriptPath, svc.ReadCache); err != nil {
			return "", err
		}
	}
	if h.Event == "PostToolUse" && h.ToolName == "Read" && agent == ClaudeCodeAgent {
		return claudeRead(ctx, h, svc.ReadCache)
	}
	if h.Event == "PostToolUse" && isClaudeEdit(h.ToolName) && agent == ClaudeCodeAgent {
		// The model now believes the file is what it made it: no note may
		// stand for what it was shown before.
		return "", editedInput(ctx, h, svc.ReadCache)
	}
	if h.RoutesShell() {
		return routeBash(agent, h, svc)
	}
	if h.Event == "PreToolUse" && isMCPSessionTool(h.ToolName) {
		return routeMCPRead(agent, h)
	}
	if (h.Event == "SessionEnd" || h.Event == "SubagentStop") && agent == ClaudeCodeAgent && h.SessionID != "" {
		return "", endSessions(ctx, agent, h, svc.ReadCache)
	}
	if h.Event != "SessionStart" && h.Event != "PreCompact" && h.Event != "PostCompact" {
		return "", nil
	}
	if h.SessionID != "" {
		if _, err := svc.ReadCache.CompactExisting(ctx, agent.ReadSession(h)); err != nil {
			return "", err
		}
	}
	if _, err := svc.ReadCache.CompactLive(ctx); err != nil {
		return "", err
	}
	if h.Event != "SessionStart" {
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
	// Claude Code keeps the last messages verbatim across a compaction: an
	// [unchanged] note among them stands for content the summary dropped.
	note := "freshctx: context reset (" + knownSource(h.Source) + "); reads start fresh: an [unchanged: …] note from before " +
		"stands for content you may no longer hold, so read the file again\n"
	if agent == CodexAgent {
		return answerJSON(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": "SessionStart", "additionalContext": note}})
	}
	return note, nil
}

// answerJSON is a hook's answer as JSON, with DEL and the C1 control
// characters (U+007F–U+009F) written as \u escapes, as JSON allows:
// encoding/json escapes only those below U+0020, and an answer passes on
// what the agent sent (a path, a command line) or a file's text, where a
// terminal showing the hook's output would take U+009B for CSI. The agent
// decodes the same characters.
func answerJSON(v any) (string, error) {
	b, err := json.Marshal(v) // valid UTF-8: bytes that were not are U+FFFD
	if err != nil {
		return "", err
	}
	s := string(b)
	if !strings.ContainsFunc(s, isC1) {
		return s, nil
	}
	var out strings.Builder
	for _, r := range s {
		if isC1(r) {
			fmt.Fprintf(&out, `\u%04x`, r)
		} else {
			out.WriteRune(r)
		}
	}
	return out.String(), nil
}

func isC1(r rune) bool { return r >= 0x7f && r <= 0x9f }
