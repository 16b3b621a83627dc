package integrate

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// server is the MCP server entry every agent's configuration gets.
func server() map[string]any {
	return map[string]any{"command": "freshctx", "args": []any{"mcp"}}
}

// ClaudeCode plans the project's Claude Code configuration: the server in
// .mcp.json, SessionStart and PreCompact hooks in .claude/settings.json, and
// a short note in CLAUDE.md.
func ClaudeCode(root string) ([]Change, error) {
	var out []Change
	mcp, err := mcpServers(filepath.Join(root, ".mcp.json"))
	if err != nil {
		return nil, err
	}
	out = append(out, mcp)
	settings, err := mergeHooks(filepath.Join(root, ".claude", "settings.json"), ClaudeCodeAgent, claudeEvents)
	if err != nil {
		return nil, err
	}
	out = append(out, settings)
	note, err := claudeNote(filepath.Join(root, "CLAUDE.md"))
	if err != nil {
		return nil, err
	}
	return append(out, note), nil
}

// mcpServers merges freshctx into a {"mcpServers": {...}} file, as
// .mcp.json and Cursor's .cursor/mcp.json are.
func mcpServers(path string) (Change, error) {
	m, existed, err := loadJSON(path)
	if err != nil {
		return Change{}, err
	}
	servers, err := object(m, "mcpServers", path)
	if err != nil {
		return Change{}, err
	}
	if _, ok := servers["freshctx"]; !ok {
		servers["freshctx"] = server()
	}
	b, err := marshal(m)
	if err != nil {
		return Change{}, err
	}
	return change(path, b, existed)
}

// hookEvent is one hook init adds: the event, and the matcher of its group.
type hookEvent struct{ event, matcher string }

// claudeEvents: every context reset, the read cache behind Read, the
// model's own edits (which move its picture of a file), tests and builds
// in Bash through freshctx run, freshctx's own read tool told which
// context (main thread or subagent) calls it, and the end of a
// conversation or a subagent, whose read sessions gc may then delete.
var claudeEvents = []hookEvent{{"SessionStart", ""}, {"PreCompact", ""}, {"PostToolUse", "Read"},
	{"PostToolUse", claudeEditMatcher}, {"PreToolUse", "Bash"},
	{"PreToolUse", MCPSessionMatcher}, {"SessionEnd", ""}, {"SubagentStop", ""}}

// mergeHooks adds the agent's freshctx hook to each event and matcher of a
// {"hooks": {EVENT: [{matcher, hooks: [...]}]}} file (Claude Code's
// settings, Codex's hooks.json), unless a group of that matcher (or of
// every tool) already runs it. What else the file holds is kept.
func mergeHooks(path string, agent Agent, events []hookEvent) (Change, error) {
	m, existed, err := loadJSON(path)
	if err != nil {
		return Change{}, err
	}
	hooks, err := object(m, "hooks", path)
	if err != nil {
		return Change{}, err
	}
	command := agent.HookCommand()
	for _, e := range events {
		groups, _ := hooks[e.event].([]any)
		if hooks[e.event] != nil && groups == nil {
			return Change{}, errors.New(path + ": hooks." + e.event + " is not a list")
		}
		if !runsHook(groups, command, e.matcher) {
			group := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command}}}
			if e.matcher != "" || agent == ClaudeCodeAgent {
				group["matcher"] = e.matcher
			}
			groups = append(groups, group)
		}
		hooks[e.event] = groups
	}
	b, err := marshal(m)
	if err != nil {
		return Change{}, err
	}
	return change(path, b, existed)
}

func runsHook(groups []any, command, matcher string) bool {
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		if m, _ := gm["matcher"].(string); m != matcher && m != "" && m != "*" {
			continue
		}
		hs, _ := gm["hooks"].([]any)
		for _, h := range hs {
			hm, _ := h.(map[string]any)
			if cmd, _ := hm["command"].(string); strings.Contains(cmd, command) {
				return true
			}
		}
	}
	return false
}

const (
	noteBegin = "<!-- freshctx:begin -->"
	noteEnd   = "<!-- freshctx:end -->"
)

// Note is what CLAUDE.md (or AGENTS.md) is told.
const Note = noteBegin + `
## freshctx

- Run tests, builds and linters through the ` + "`run`" + ` tool (or ` + "`freshctx run -- CMD`" + `): it keeps the whole
  output and answers with a digest that keeps every failure and file:line; ` + "`show`" + ` gives the raw output.
- Before re-running something to remember what it said, ` + "`recall`" + ` it: results say whether the files
  they name changed since (fresh, stale_changed, stale_deleted).
- Read files with the ` + "`read`" + ` tool: it answers "unchanged" or a diff when you have already seen the file.
` + noteEnd + "\n"

func claudeNote(path string) (Change, error) {
	b, err := os.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Change{}, err
	}
	text := string(b)
	if i, j := strings.Index(text, noteBegin), strings.Index(text, noteEnd); i >= 0 && j > i {
		text = text[:i] + Note + strings.TrimPrefix(text[j+len(noteEnd):], "\n")
	} else {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if text != "" {
			text += "\n"
		}
		text += Note
	}
	return change(path, []byte(text), existed)
}

// Cursor plans the project's .cursor/mcp.json.
func Cursor(root string) ([]Change, error) {
	c, err := mcpServers(filepath.Join(root, ".cursor", "mcp.json"))
	if err != nil {
		return nil, err
	}
	return []Change{c}, nil
}
