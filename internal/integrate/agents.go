package integrate

import (
	"errors"
	"path/filepath"
	"strings"
)

// AgentInfo is all freshctx knows of one agent, one row of Agents: init,
// hook and the MCP server read it, so adding an agent is adding a row (and
// what its row names: its configuration writer, its extension).
type AgentInfo struct {
	Agent Agent  // its name in init and hook
	Title string // as its users call it
	// SessionPrefix starts the read session of each of its conversations,
	// which the agent's own conversation id ends.
	SessionPrefix string
	// ClientName is what its MCP client calls itself (clientInfo.name,
	// matched without case as a part of it); "" when it has none.
	ClientName string
	// MaxLines and MaxBytes bound the read answers its MCP client gets
	// (0: a plain read tool's, 2,000 lines and 50 KB).
	MaxLines, MaxBytes int
	// Hooked: it runs `freshctx hook AGENT` (from the hooks init installs,
	// or from its extension).
	Hooked bool
	// Events are the hooks init installs for it ("" matcher: every tool).
	Events []hookEvent
	// UserByDefault: init writes the user's configuration unless told
	// --project (Codex reads its home first).
	UserByDefault bool
	// Install plans init's changes at a place; Remove plans taking them
	// out again (init --remove).
	Install, Remove func(Place) ([]Change, error)
	// Next is what init tells the user to do after it, if anything.
	Next string
}

// Place is where init writes: the project's root, or the user's home for
// every project.
type Place struct {
	Root, Home string
	User       bool
	// RunCommands are the Bash command prefixes the hook routes
	// (hooks.run_commands), which decide the lines an agent that can
	// filter its hooks starts the Bash hook for (BashRules).
	RunCommands []string
}

// Codex keeps the head and the tail of a tool result over its budget and
// drops the middle before the model sees it (0.169.0, with a model it has
// no metadata for, sent 12 KB of a 46 KB read; tool_output_token_limit in
// its config sets the budget). A read the model got only part of must never
// count as delivered, so reads served to Codex stay well under that budget:
// line numbers add 7 bytes a line.
const (
	codexMaxLines = 250
	codexMaxBytes = 6000
)

// Agents is the table of agents, in the order help lists them.
var Agents = []AgentInfo{
	{Agent: ClaudeCodeAgent, Title: "Claude Code", SessionPrefix: "claude-", ClientName: "claude",
		Hooked: true, Events: claudeEvents,
		Install: func(p Place) ([]Change, error) {
			if p.User {
				return ClaudeCodeUser(p.Home, p.RunCommands)
			}
			return ClaudeCode(p.Root, p.RunCommands)
		},
		Remove: func(p Place) ([]Change, error) {
			if p.User {
				return claudeCodeRemove(filepath.Join(p.Home, ".claude.json"), filepath.Join(p.Home, ".claude", "settings.json"),
					filepath.Join(p.Home, ".claude", "CLAUDE.md"))
			}
			return claudeCodeRemove(filepath.Join(p.Root, ".mcp.json"), filepath.Join(p.Root, ".claude", "settings.json"),
				filepath.Join(p.Root, "CLAUDE.md"))
		}},
	{Agent: CursorAgent, Title: "Cursor", SessionPrefix: "cursor-", ClientName: "cursor",
		Install: func(p Place) ([]Change, error) {
			if p.User {
				return Cursor(p.Home)
			}
			return Cursor(p.Root)
		},
		Remove: func(p Place) ([]Change, error) {
			dir := p.Root
			if p.User {
				dir = p.Home
			}
			c, err := removeServer(filepath.Join(dir, ".cursor", "mcp.json"))
			return []Change{c}, err
		}},
	{Agent: CodexAgent, Title: "Codex", SessionPrefix: "codex-", ClientName: "codex",
		MaxLines: codexMaxLines, MaxBytes: codexMaxBytes, Hooked: true, Events: codexEvents, UserByDefault: true,
		Install: func(p Place) ([]Change, error) {
			dir, err := codexDir(p)
			if err != nil {
				return nil, err
			}
			return Codex(dir)
		},
		Remove: func(p Place) ([]Change, error) {
			dir, err := codexDir(p)
			if err != nil {
				return nil, err
			}
			return codexRemove(dir)
		},
		Next: "start codex and trust freshctx's hooks with /hooks; until then its read tool " +
			"answers every read with content (it cannot see Codex's context resets without them)"},
	{Agent: PiAgent, Title: "pi", SessionPrefix: "pi-", ClientName: "freshctx-pi", Hooked: true,
		Install: func(p Place) ([]Change, error) { return Pi(piDir(p)) },
		Remove:  func(p Place) ([]Change, error) { return PiRemove(piDir(p)) }},
}

// Lookup is the row of the agent named name.
func Lookup(name string) (AgentInfo, bool) {
	for _, a := range Agents {
		if string(a.Agent) == name {
			return a, true
		}
	}
	return AgentInfo{}, false
}

// ForClient is the row of the agent whose MCP client calls itself name.
func ForClient(name string) (AgentInfo, bool) {
	name = strings.ToLower(name)
	var best AgentInfo
	for _, a := range Agents { // the longest match: "freshctx-pi" over a shorter name in it
		if a.ClientName != "" && strings.Contains(name, a.ClientName) && len(a.ClientName) > len(best.ClientName) {
			best = a
		}
	}
	return best, best.Agent != ""
}

// Names lists the agents' names, for help and errors.
func Names() []string {
	var out []string
	for _, a := range Agents {
		out = append(out, string(a.Agent))
	}
	return out
}

// codexDir is the folder init codex writes: the project's .codex, else
// Codex's home ($CODEX_HOME, else ~/.codex).
func codexDir(p Place) (string, error) {
	if !p.User {
		return filepath.Join(p.Root, ".codex"), nil
	}
	if home := CodexHome(); home != "" {
		return home, nil
	}
	return "", errors.New("find the home folder for ~/.codex: set CODEX_HOME")
}

func piDir(p Place) string {
	if p.User {
		return PiUserDir(p.Home)
	}
	return PiProjectDir(p.Root)
}
