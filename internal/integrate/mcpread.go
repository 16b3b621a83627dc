package integrate

import (
	"encoding/json"
	"slices"
)

// MCPReadTool is freshctx's read tool as Claude Code names it (the server
// is "freshctx" in .mcp.json).
const MCPReadTool = "mcp__freshctx__read"

// mcpSessionTools are freshctx's tools that act on a read session: the
// read tool and the session tools, which must act on the session the
// context's reads go to.
var mcpSessionTools = []string{MCPReadTool, "mcp__freshctx__session_compact", "mcp__freshctx__session_refresh",
	"mcp__freshctx__session_status"}

// MCPSessionMatcher is the hook matcher of mcpSessionTools.
const MCPSessionMatcher = "mcp__freshctx__(read|session_compact|session_refresh|session_status)"

// isMCPSessionTool reports whether a tool is one of mcpSessionTools.
func isMCPSessionTool(name string) bool { return slices.Contains(mcpSessionTools, name) }

// routeMCPRead answers PreToolUse for freshctx's read and session tools:
// it names the read session of the context that calls them. Claude Code's
// subagents share the main thread's MCP connection, and nothing in the
// call says which context made it; without this the server serves reads
// without trust (every read whole), and a session tool acts on the
// connection's own session. The rest of the input is passed on.
func routeMCPRead(agent Agent, h *HookInput) (string, error) {
	var input map[string]any
	if err := json.Unmarshal(h.ToolInput, &input); err != nil || input == nil || h.SessionID == "" {
		return "", nil
	}
	input["session"] = agent.ReadSession(h)
	out := map[string]any{"hookEventName": "PreToolUse", "updatedInput": input}
	if agent == CodexAgent {
		// Codex applies an updated input only with this decision. It
		// approves nothing the user's configuration would not: init
		// approves freshctx's own tools in advance
		// (default_tools_approval_mode), and a server configured without
		// that approval gets no session named, so no notes.
		if !codexApprovesFreshctx(h.Cwd) {
			return "", nil
		}
		out["permissionDecision"] = "allow"
	}
	return answerJSON(map[string]any{"hookSpecificOutput": out})
}
