package integrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// init --remove takes out what init put in, as text, the way init put it
// in (jsonedit.go): each entry of freshctx's is cut with the separator
// that joined it to its neighbours, so a file init added to is given back
// byte for byte, and everything else in it stays. Entries that are not as
// freshctx writes them (another command under its name, an edited note)
// are left where they are and said. A file that held nothing but
// freshctx's is removed.

// item is one member of an object or element of an array: from where its
// key (or value) starts to where its value ends.
type item struct{ start, end int }

// cutItem is doc without items[i] of the container whose brackets are at
// open and close, and the separator that joined it to its neighbours.
func cutItem(doc []byte, open, close int, items []item, i int) []byte {
	var from, to int
	switch {
	case len(items) == 1:
		from, to = open+1, close
	case i > 0:
		from, to = items[i-1].end, items[i].end
	default:
		from, to = items[0].start, items[1].start
	}
	return append(doc[:from:from], doc[to:]...)
}

func memberItems(ms []jsonMember) []item {
	out := make([]item, len(ms))
	for i, m := range ms {
		out[i] = item{m.keyStart, m.val.end}
	}
	return out
}

// arrayItems lists the elements of the array at v.
func arrayItems(doc []byte, v jsonValue) ([]item, error) {
	dec := json.NewDecoder(bytes.NewReader(doc[v.start:v.end]))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var out []item
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		end := v.start + int(dec.InputOffset())
		out = append(out, item{end - len(raw), end})
	}
	return out, nil
}

// removeChange is the change of a file freshctx took its entries out of:
// removed when nothing else was in it, unchanged when nothing was taken.
func removeChange(path string, before, after []byte) (Change, error) {
	if bytes.Equal(before, after) {
		return Change{Path: path, Action: "unchanged"}, nil
	}
	trimmed := bytes.TrimSpace(after)
	if len(trimmed) == 0 || string(trimmed) == "{}" {
		return Change{Path: path, Action: "removed"}, nil
	}
	if strings.HasSuffix(path, ".json") && !json.Valid(after) {
		return Change{}, fmt.Errorf("%s: taking freshctx's entries out would leave it invalid JSON; nothing was written (edit it by hand, or report this)", path)
	}
	return Change{Path: path, Action: "updated", Content: string(after)}, nil
}

// readIfThere is a file's content, and whether it is there.
func readIfThere(path string) ([]byte, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return b, err == nil, err
}

// removeServer takes freshctx's entry out of a {"mcpServers": {...}} file
// (and mcpServers itself, when that leaves it empty).
func removeServer(path string) (Change, error) {
	before, there, err := readIfThere(path)
	if err != nil || !there {
		return Change{Path: path, Action: "unchanged"}, err
	}
	f, err := loadServers(path)
	if err != nil || !f.ok {
		return Change{Path: path, Action: "unchanged"}, err
	}
	doc, root, ms, servers := f.doc, f.root, f.members, f.servers
	sms, err := objectAt(doc, servers, path, `"mcpServers"`)
	if err != nil {
		return Change{}, err
	}
	i := -1
	for k, m := range sms {
		if m.key == "freshctx" {
			i = k
		}
	}
	if i < 0 {
		return Change{Path: path, Action: "unchanged"}, nil
	}
	var entry any
	json.Unmarshal(doc[sms[i].val.start:sms[i].val.end], &entry)
	if !reflect.DeepEqual(entry, server()) {
		return Change{Path: path, Action: "kept: mcpServers.freshctx is not as init writes it; take it out by hand"}, nil
	}
	if len(sms) == 1 { // mcpServers held freshctx alone: it goes too
		return removeChange(path, before, cutItem(doc, root.start, root.end-1, memberItems(ms), indexOf(ms, servers)))
	}
	return removeChange(path, before, cutItem(doc, servers.val.start, servers.val.end-1, memberItems(sms), i))
}

func indexOf(ms []jsonMember, m jsonMember) int {
	for i, x := range ms {
		if x.keyStart == m.keyStart {
			return i
		}
	}
	return -1
}

// removeHooks takes the agent's hooks out of a {"hooks": {EVENT: [groups]}}
// file: each hook that runs the agent's hook command, then each group,
// event and "hooks" left empty by it. One entry at a time, the document
// read again after each cut.
func removeHooks(path string, agent Agent) (Change, error) {
	before, there, err := readIfThere(path)
	if err != nil || !there {
		return Change{Path: path, Action: "unchanged"}, err
	}
	doc := bytes.Clone(before)
	for {
		next, cut, err := cutOneHook(doc, path, func(_, _ string, h map[string]any) bool {
			cmd, _ := h["command"].(string)
			return slices.ContainsFunc(agent.ownCommands(), func(own string) bool {
				return strings.TrimSpace(cmd) == strings.TrimSpace(own)
			})
		})
		if err != nil {
			return Change{}, err
		}
		if !cut {
			return removeChange(path, before, doc)
		}
		doc = next
	}
}

// hookMatch says whether a hook entry, decoded, is one to cut: the event
// and the matcher of the group it is in ("" when the group has none).
type hookMatch func(event, matcher string, h map[string]any) bool

// cutOneHook cuts the first hook entry match says to, with what that
// leaves empty; cut is false when there is none.
func cutOneHook(doc []byte, path string, match hookMatch) (out []byte, cut bool, err error) {
	root := docRoot(doc)
	ms, err := objectMembers(doc, root)
	if err != nil {
		return nil, false, fmt.Errorf("%s is not a JSON object: %w", path, err)
	}
	hooks, ok, err := member(ms, "hooks", path, "")
	if err != nil || !ok || doc[hooks.val.start] != '{' {
		return nil, false, err
	}
	hms, err := objectMembers(doc, hooks.val)
	if err != nil {
		return nil, false, err
	}
	for ei, ev := range hms {
		if doc[ev.val.start] != '[' {
			continue
		}
		groups, err := arrayItems(doc, ev.val)
		if err != nil {
			return nil, false, err
		}
		for gi, g := range groups {
			var gm map[string]json.RawMessage
			if json.Unmarshal(doc[g.start:g.end], &gm) != nil || gm["hooks"] == nil {
				continue
			}
			gms, err := objectMembers(doc, jsonValue{g.start, g.end})
			if err != nil {
				return nil, false, err
			}
			hs, _, err := member(gms, "hooks", path, "a group's ")
			if err != nil || doc[hs.val.start] != '[' {
				continue
			}
			list, err := arrayItems(doc, hs.val)
			if err != nil {
				return nil, false, err
			}
			for hi, h := range list {
				var hm map[string]any
				if json.Unmarshal(doc[h.start:h.end], &hm) != nil {
					continue
				}
				var matcher string
				json.Unmarshal(gm["matcher"], &matcher)
				if !match(ev.key, matcher, hm) {
					continue
				}
				switch {
				case len(list) > 1: // the group runs other hooks too
					return cutItem(doc, hs.val.start, hs.val.end-1, list, hi), true, nil
				case len(groups) > 1:
					return cutItem(doc, ev.val.start, ev.val.end-1, groups, gi), true, nil
				case len(hms) > 1:
					return cutItem(doc, hooks.val.start, hooks.val.end-1, memberItems(hms), ei), true, nil
				}
				return cutItem(doc, root.start, root.end-1, memberItems(ms), indexOf(ms, hooks)), true, nil
			}
		}
	}
	return nil, false, nil
}

// removeNote takes freshctx's block out of CLAUDE.md, with the blank line
// init put before it; markers not around one block are left and said.
func removeNote(path string) (Change, error) {
	b, there, err := readIfThere(path)
	if err != nil || !there {
		return Change{Path: path, Action: "unchanged"}, err
	}
	text := string(b)
	begins, ends := strings.Count(text, noteBegin), strings.Count(text, noteEnd)
	i, j := strings.Index(text, noteBegin), strings.Index(text, noteEnd)
	switch {
	case begins == 0 && ends == 0:
		return Change{Path: path, Action: "unchanged"}, nil
	case begins != 1 || ends != 1 || j < i:
		return Change{Path: path, Action: fmt.Sprintf("kept: it holds %d %s and %d %s markers, not one block; take freshctx's note out by hand",
			begins, noteBegin, ends, noteEnd)}, nil
	}
	head, tail := text[:i], strings.TrimPrefix(text[j+len(noteEnd):], "\n")
	if tail == "" {
		head = strings.TrimSuffix(head, "\n") // the blank line init put before the block
	}
	return removeChange(path, b, []byte(head+tail))
}

// removeCodexTable takes the table init appended out of config.toml,
// with the blank line before it; an entry in any other form is left.
func removeCodexTable(path string) (Change, error) {
	b, there, err := readIfThere(path)
	if err != nil || !there {
		return Change{Path: path, Action: "unchanged"}, err
	}
	before, err := parseTOML(path, b)
	if err != nil {
		return Change{}, err
	}
	if _, ok := codexEntry(before); !ok {
		return Change{Path: path, Action: "unchanged"}, nil
	}
	text := string(b)
	if strings.Count(text, codexTable) != 1 {
		return Change{Path: path, Action: "kept: [mcp_servers.freshctx] is not as init writes it; take it out by hand"}, nil
	}
	i := strings.Index(text, codexTable)
	head, tail := text[:i], text[i+len(codexTable):]
	if tail == "" {
		head = strings.TrimSuffix(head, "\n")
	}
	after := head + tail
	parsed, err := parseTOML(path, []byte(after))
	if err != nil {
		return Change{}, err
	}
	if servers, _ := before["mcp_servers"].(map[string]any); servers != nil {
		delete(servers, "freshctx")
		if len(servers) == 0 {
			delete(before, "mcp_servers")
		}
	}
	if !reflect.DeepEqual(before, parsed) {
		return Change{Path: path, Action: "kept: taking the table out would change more than freshctx's entry; take it out by hand"}, nil
	}
	return removeChange(path, b, []byte(after))
}

// claudeCodeRemove plans taking freshctx out of Claude Code's files.
func claudeCodeRemove(mcpPath, settingsPath, notePath string) ([]Change, error) {
	mcp, err := removeServer(mcpPath)
	if err != nil {
		return nil, err
	}
	settings, err := removeHooks(settingsPath, ClaudeCodeAgent)
	if err != nil {
		return nil, err
	}
	note, err := removeNote(notePath)
	if err != nil {
		return nil, err
	}
	return []Change{mcp, settings, note}, nil
}

// codexRemove plans taking freshctx out of Codex's files in dir.
func codexRemove(dir string) ([]Change, error) {
	hooks, err := removeHooks(filepath.Join(dir, "hooks.json"), CodexAgent)
	if err != nil {
		return nil, err
	}
	config, err := removeCodexTable(filepath.Join(dir, "config.toml"))
	if err != nil {
		return nil, err
	}
	return []Change{config, hooks}, nil
}
