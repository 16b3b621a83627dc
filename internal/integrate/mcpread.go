package integrate

import "encoding/json"

// MCPReadTool is freshctx's read tool as Claude Code names it (the server
// is "freshctx" in .mcp.json).
const MCPReadTool = "mcp__freshctx__read"

// routeMCPRead answers PreToolUse for freshctx's own read tool: it names
// the read session of the context that calls it. Claude Code's subagents
// share the main thread's MCP connection, and nothing in the call says
// which context made it; without this the server serves such calls
// without trust (every read whole). The rest of the input is passed on.
func routeMCPRead(agent Agent, h *HookInput) (string, error) {
	var input map[string]any
	if err := json.Unmarshal(h.ToolInput, &input); err != nil || input == nil || h.SessionID == "" {
		return "", nil
	}
	input["session"] = agent.ReadSession(h)
	b, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "updatedInput": input}})
	return string(b), err
}
