package integrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// server is the MCP server entry every agent's configuration gets.
func server() map[string]any {
	return map[string]any{"command": "freshctx", "args": []any{"mcp"}}
}

// ClaudeCode plans the project's Claude Code configuration: the server in
// .mcp.json, the hooks in .claude/settings.json, and a short note in
// CLAUDE.md. The Bash hook is started for the lines runCommands may route
// (BashRules).
func ClaudeCode(root string, runCommands []string) ([]Change, error) {
	return claudeCodeFiles(filepath.Join(root, ".mcp.json"), filepath.Join(root, ".claude", "settings.json"),
		filepath.Join(root, "CLAUDE.md"), runCommands)
}

// ClaudeCodeUser plans the user's own Claude Code configuration, for every
// project: the server in ~/.claude.json (its user scope), the hooks in
// ~/.claude/settings.json and the note in ~/.claude/CLAUDE.md.
func ClaudeCodeUser(home string, runCommands []string) ([]Change, error) {
	return claudeCodeFiles(filepath.Join(home, ".claude.json"), filepath.Join(home, ".claude", "settings.json"),
		filepath.Join(home, ".claude", "CLAUDE.md"), runCommands)
}

func claudeCodeFiles(mcpPath, settingsPath, notePath string, runCommands []string) ([]Change, error) {
	mcp, err := mcpServers(mcpPath)
	if err != nil {
		return nil, err
	}
	settings, err := mergeHooks(settingsPath, ClaudeCodeAgent, claudeEvents, bashFilter(runCommands))
	if err != nil {
		return nil, err
	}
	note, err := claudeNote(notePath)
	if err != nil {
		return nil, err
	}
	return []Change{mcp, settings, note}, nil
}

// mcpServers merges freshctx into a {"mcpServers": {...}} file, as
// .mcp.json and Cursor's .cursor/mcp.json are, as text (jsonedit.go).
func mcpServers(path string) (Change, error) {
	f, err := loadServers(path)
	if err != nil {
		return Change{}, err
	}
	doc, root, ms, servers, ok := f.doc, f.root, f.members, f.servers, f.ok
	existed := f.existed
	var ins []insertion
	if !ok {
		in, err := addMembers(doc, root, ms, []newMember{{"mcpServers", map[string]any{"freshctx": server()}}})
		if err != nil {
			return Change{}, err
		}
		ins = append(ins, in)
	} else {
		sms, err := objectAt(doc, servers, path, `"mcpServers"`)
		if err != nil {
			return Change{}, err
		}
		if _, has, err := member(sms, "freshctx", path, "mcpServers."); err != nil {
			return Change{}, err
		} else if !has {
			in, err := addMembers(doc, servers.val, sms, []newMember{{"freshctx", server()}})
			if err != nil {
				return Change{}, err
			}
			ins = append(ins, in)
		}
	}
	return jsonChange(path, apply(doc, ins), existed)
}

// serversFile is a {"mcpServers": {...}} file read for editing.
type serversFile struct {
	doc     []byte
	root    jsonValue
	members []jsonMember // the root object's
	servers jsonMember   // mcpServers, when ok
	ok      bool
	existed bool
}

func loadServers(path string) (serversFile, error) {
	var f serversFile
	var err error
	if f.doc, f.root, f.existed, err = loadDoc(path); err != nil {
		return f, err
	}
	if f.members, err = objectMembers(f.doc, f.root); err != nil {
		return f, err
	}
	f.servers, f.ok, err = member(f.members, "mcpServers", path, "")
	return f, err
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
// every tool) already runs it, with the rules filter gives (bashfilter.go).
// The file is edited as text (jsonedit.go): every byte of it stays but
// freshctx's own handlers whose rules are not those filter gives now
// (refilter); a "hooks" key or an event key that is there twice is refused.
func mergeHooks(path string, agent Agent, events []hookEvent, filter hookFilter) (Change, error) {
	doc, _, existed, err := loadDoc(path)
	if err != nil {
		return Change{}, err
	}
	command := agent.HookCommand()
	if doc, err = refilter(doc, path, agent, events, filter); err != nil {
		return Change{}, err
	}
	root := docRoot(doc)
	ms, err := objectMembers(doc, root)
	if err != nil {
		return Change{}, err
	}
	hooks, ok, err := member(ms, "hooks", path, "")
	if err != nil {
		return Change{}, err
	}
	group := func(e hookEvent) map[string]any {
		rules, _ := filter(e)
		g := map[string]any{"hooks": handlers(agent.eventCommand(e), rules)}
		if e.matcher != "" || agent == ClaudeCodeAgent {
			g["matcher"] = e.matcher
		}
		return g
	}
	events = slices.DeleteFunc(slices.Clone(events), func(e hookEvent) bool {
		_, skip := filter(e)
		return skip
	})
	if !ok {
		all := map[string]any{}
		for _, e := range events {
			groups, _ := all[e.event].([]any)
			all[e.event] = append(groups, group(e))
		}
		in, err := addMembers(doc, root, ms, []newMember{{"hooks", all}})
		if err != nil {
			return Change{}, err
		}
		return jsonChange(path, apply(doc, []insertion{in}), existed)
	}
	hms, err := objectAt(doc, hooks, path, `"hooks"`)
	if err != nil {
		return Change{}, err
	}
	var ins []insertion
	var added []newMember // events the file has no key for, in order
	appended := map[string][]any{}
	var arrays []jsonMember // the events' arrays groups are appended to, in order
	for _, e := range events {
		if i := slices.IndexFunc(added, func(m newMember) bool { return m.key == e.event }); i >= 0 {
			added[i].value = append(added[i].value.([]any), group(e))
			continue
		}
		ev, has, err := member(hms, e.event, path, "hooks.")
		if err != nil {
			return Change{}, err
		}
		if !has {
			added = append(added, newMember{e.event, []any{group(e)}})
			continue
		}
		var groups []any
		if doc[ev.val.start] != '[' || json.Unmarshal(doc[ev.val.start:ev.val.end], &groups) != nil {
			return Change{}, errors.New(path + ": hooks." + e.event + " is not a list")
		}
		if runsHook(groups, command, e.matcher) {
			continue
		}
		if appended[e.event] == nil {
			arrays = append(arrays, ev)
		}
		appended[e.event] = append(appended[e.event], group(e))
	}
	for _, ev := range arrays { // one insertion per array: its groups side by side
		in, err := addElements(doc, ev.val, appended[ev.key])
		if err != nil {
			return Change{}, err
		}
		ins = append(ins, in)
	}
	if len(added) > 0 {
		in, err := addMembers(doc, hooks.val, hms, added)
		if err != nil {
			return Change{}, err
		}
		ins = append(ins, in)
	}
	return jsonChange(path, apply(doc, ins), existed)
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
	begins, ends := strings.Count(text, noteBegin), strings.Count(text, noteEnd)
	i, j := strings.Index(text, noteBegin), strings.Index(text, noteEnd)
	switch {
	case begins == 1 && ends == 1 && j > i:
		text = text[:i] + Note + strings.TrimPrefix(text[j+len(noteEnd):], "\n")
	case begins > 0 || ends > 0:
		// Not a block of freshctx's own: replacing from a stray marker
		// would delete the user's text after it.
		return Change{Path: path, Content: string(b), Action: fmt.Sprintf(
			"kept: it holds %d %s and %d %s markers, not one block; leave one pair around freshctx's note, or none, and run init again",
			begins, noteBegin, ends, noteEnd)}, nil
	default:
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
