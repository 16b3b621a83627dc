package integrate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// codexServer is the [mcp_servers.freshctx] table init writes. Tool calls
// are approved in advance so that codex exec, which cannot ask, can call them.
var codexServer = map[string]any{"command": "freshctx", "args": []any{"mcp"}, "default_tools_approval_mode": "approve"}

const codexTable = "[mcp_servers.freshctx]\ncommand = \"freshctx\"\nargs = [\"mcp\"]\ndefault_tools_approval_mode = \"approve\"\n"

// codexEvents: every context reset, tests and builds in Bash through
// freshctx run, and freshctx's own read and session tools told the
// conversation's read session (without it the server has no barrier
// source and answers every read whole). Codex's PostToolUse can replace
// only an MCP tool's output, so its shell reads are left as they are.
var codexEvents = []hookEvent{{"SessionStart", ""}, {"PreCompact", ""}, {"PostCompact", ""}, {"PreToolUse", "Bash"},
	{"PreToolUse", MCPSessionMatcher}}

// Codex plans Codex's configuration in dir (the Codex home, or a project's
// .codex folder): the freshctx hooks in hooks.json, merged as Claude Code's
// settings are, and the freshctx MCP server in config.toml, merged into
// what that file holds. The file is read with a TOML parser, so
// an entry written as an inline table or with dotted keys is found (and a
// commented-out one is not); the table is appended as text so comments and
// layout stay, and the result is parsed again to prove that it adds the
// server and changes nothing else. An entry that runs something else is
// left alone and reported; a file that is not TOML is never written.
func Codex(dir string) ([]Change, error) {
	hooks, err := mergeHooks(filepath.Join(dir, "hooks.json"), CodexAgent, codexEvents, noFilter)
	if err != nil {
		return nil, err
	}
	config, err := codexConfig(filepath.Join(dir, "config.toml"))
	if err != nil {
		return nil, err
	}
	return []Change{config, hooks}, nil
}

func codexConfig(path string) (Change, error) {
	b, err := os.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Change{}, err
	}
	before, err := parseTOML(path, b)
	if err != nil {
		return Change{}, err
	}
	if entry, ok := codexEntry(before); ok {
		c := Change{Path: path, Content: string(b), Action: "unchanged"}
		if entry["command"] != "freshctx" || !reflect.DeepEqual(entry["args"], []any{"mcp"}) {
			c.Action = fmt.Sprintf("kept: mcp_servers.freshctx runs %v %v; edit it by hand to use freshctx mcp", entry["command"], entry["args"])
		}
		return c, nil
	}
	text := string(b)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	text += codexTable
	if err := checkCodexMerge(path, before, text); err != nil {
		return Change{}, err
	}
	return change(path, []byte(text), existed)
}

func parseTOML(path string, b []byte) (map[string]any, error) {
	m := map[string]any{}
	if err := toml.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s is not valid TOML (%v); fix it or move it aside, then run init again", path, err)
	}
	return m, nil
}

// codexEntry finds mcp_servers.freshctx however it is written.
func codexEntry(m map[string]any) (map[string]any, bool) {
	servers, ok := m["mcp_servers"].(map[string]any)
	if !ok {
		return nil, false
	}
	entry, ok := servers["freshctx"].(map[string]any)
	return entry, ok
}

// checkCodexMerge parses the merged text: it must hold the server as
// written and, without it, exactly what the file held before.
func checkCodexMerge(path string, before map[string]any, text string) error {
	after, err := parseTOML(path, []byte(text))
	if err == nil {
		entry, ok := codexEntry(after)
		if ok && reflect.DeepEqual(entry, codexServer) {
			servers := after["mcp_servers"].(map[string]any)
			delete(servers, "freshctx")
			if len(servers) == 0 {
				if _, had := before["mcp_servers"]; !had {
					delete(after, "mcp_servers")
				}
			}
			if reflect.DeepEqual(after, before) {
				return nil
			}
		}
	}
	return fmt.Errorf("%s: cannot add [mcp_servers.freshctx] without changing what is there (mcp_servers is probably an inline table); "+
		"add freshctx = { command = \"freshctx\", args = [\"mcp\"], default_tools_approval_mode = \"approve\" } to it by hand", path)
}
