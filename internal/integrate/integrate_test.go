package integrate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/teststore"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestClaudeCodeMergesWithoutLosingKeys(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".claude", "settings.json"), `{
  "permissions": {"allow": ["Bash(go test:*)"]},
  "model": "opus",
  "hooks": {
    "PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "backup.sh"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]
  }
}`)
	write(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {"other": {"command": "other-mcp"}}}`)
	write(t, filepath.Join(root, "CLAUDE.md"), "# Project\n\nOur rules.")
	changes, err := ClaudeCode(root, testRunCommands)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(changes); err != nil {
		t.Fatal(err)
	}
	s := readJSON(t, filepath.Join(root, ".claude", "settings.json"))
	if s["model"] != "opus" || s["permissions"] == nil {
		t.Fatalf("settings lost keys: %v", s)
	}
	hooks := s["hooks"].(map[string]any)
	if hooks["Stop"] == nil {
		t.Fatal("the Stop hook was dropped")
	}
	pre := hooks["PreCompact"].([]any)
	if len(pre) != 2 || !strings.Contains(mustJSON(pre[0]), "backup.sh") || !strings.Contains(mustJSON(pre[1]), ClaudeCodeAgent.HookCommand()) {
		t.Fatalf("PreCompact = %s", mustJSON(pre))
	}
	if !strings.Contains(mustJSON(hooks["SessionStart"]), ClaudeCodeAgent.HookCommand()) {
		t.Fatal("no SessionStart hook")
	}
	servers := readJSON(t, filepath.Join(root, ".mcp.json"))["mcpServers"].(map[string]any)
	if servers["other"] == nil || servers["freshctx"] == nil {
		t.Fatalf("mcpServers = %v", servers)
	}
	md, _ := os.ReadFile(filepath.Join(root, "CLAUDE.md"))
	if !strings.HasPrefix(string(md), "# Project\n\nOur rules.\n\n") || !strings.Contains(string(md), "recall") {
		t.Fatalf("CLAUDE.md:\n%s", md)
	}

	// A second run changes nothing.
	again, err := ClaudeCode(root, testRunCommands)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range again {
		if c.Action != "unchanged" {
			t.Errorf("second run: %s %s", c.Path, c.Action)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestInitRefusesWhatItCannotRead(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".mcp.json"), "{not json")
	if _, err := ClaudeCode(root, testRunCommands); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Fatalf("err = %v", err)
	}
}

func TestCursor(t *testing.T) {
	changes, err := Cursor(t.TempDir())
	if err != nil || changes[0].Action != "created" {
		t.Fatalf("cursor: %+v %v", changes, err)
	}
}

// TestCodexMergesTOML: the server is found however it is written, added
// once where it is missing (a commented-out table does not count), and a
// file init cannot merge into is never written.
func TestCodexMergesTOML(t *testing.T) {
	const table = "[mcp_servers.freshctx]\ncommand = \"freshctx\"\nargs = [\"mcp\"]\ndefault_tools_approval_mode = \"approve\"\n"
	for _, tc := range []struct {
		name, before, action, after, err string
	}{
		{name: "no file", action: "created", after: table},
		{name: "other settings", before: "model = \"o4\" # fast\n", action: "updated", after: "model = \"o4\" # fast\n\n" + table},
		{name: "other servers", before: "[mcp_servers.docs]\ncommand = \"docs\"\n", action: "updated", after: "[mcp_servers.docs]\ncommand = \"docs\"\n\n" + table},
		{name: "commented out", before: "# [mcp_servers.freshctx]\n# command = \"freshctx\"\n", action: "updated", after: "# [mcp_servers.freshctx]\n# command = \"freshctx\"\n\n" + table},
		{name: "already a table", before: table, action: "unchanged"},
		{name: "inline table", before: "mcp_servers = { freshctx = { command = \"freshctx\", args = [\"mcp\"] } }\n", action: "unchanged"},
		{name: "dotted keys", before: "mcp_servers.freshctx.command = \"freshctx\"\nmcp_servers.freshctx.args = [\"mcp\"]\n", action: "unchanged"},
		{name: "runs something else", before: "[mcp_servers.freshctx]\ncommand = \"/opt/old/freshctx\"\n", action: "kept: mcp_servers.freshctx runs /opt/old/freshctx"},
		{name: "inline servers without freshctx", before: "mcp_servers = { docs = { command = \"docs\" } }\n", err: "by hand"},
		{name: "not TOML", before: "[mcp_servers\n", err: "not valid TOML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "config.toml")
			if tc.before != "" {
				write(t, path, tc.before)
			}
			changes, err := Codex(dir)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c := changes[0]
			if !strings.HasPrefix(c.Action, tc.action) {
				t.Fatalf("action %q, want %q", c.Action, tc.action)
			}
			if tc.after != "" && c.Content != tc.after {
				t.Fatalf("content:\n%s\nwant:\n%s", c.Content, tc.after)
			}
			if err := Apply(changes); err != nil {
				t.Fatal(err)
			}
			if again, err := Codex(dir); err != nil || again[0].Action != "unchanged" && !strings.HasPrefix(again[0].Action, "kept") {
				t.Fatalf("second run: %+v, %v", again, err)
			}
		})
	}
}

func TestHookInputIsParsed(t *testing.T) {
	if _, err := ParseHook(strings.NewReader("nope")); err == nil {
		t.Fatal("bad hook input accepted")
	}
	h, err := ParseHook(strings.NewReader(`{"hook_event_name":"Stop","cwd":"/p"}`))
	if err != nil || h.Cwd != "/p" {
		t.Fatalf("parse: %+v %v", h, err)
	}
	out, err := Hook(context.Background(), ClaudeCodeAgent, h, HookServices{})
	if err != nil || out != "" {
		t.Fatalf("an unhandled event: %q %v", out, err)
	}
}

// TestEveryContextResetIsABarrier: after any SessionStart, PreCompact or
// PostCompact, the conversation's next read of a file it had read is its
// content again, for each agent.
func TestEveryContextResetIsABarrier(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.txt"), strings.Repeat("a line long enough that the unchanged note is cheaper\n", 5))
	rc := &readcache.Service{WS: teststore.Workspace(t, dir), Store: teststore.Open(t, "", store.Options{}), Cwd: dir}
	resets := []HookInput{
		{Event: "SessionStart", Source: "startup"}, {Event: "SessionStart", Source: "resume"},
		{Event: "SessionStart", Source: "clear"}, {Event: "SessionStart", Source: "compact"}, {Event: "PreCompact", Trigger: "auto"},
	}
	for agent, events := range map[Agent][]HookInput{
		ClaudeCodeAgent: resets,
		CodexAgent:      append(resets, HookInput{Event: "SessionStart", Source: "fork"}, HookInput{Event: "PostCompact", Trigger: "manual"}),
	} {
		session := agent.Session("0b3f-9a")
		read := func() string {
			res, err := rc.Read(ctx, readcache.ReadRequest{Session: session, Target: "a.txt"})
			if err != nil {
				t.Fatal(err)
			}
			if err := rc.Delivered(ctx, res); err != nil {
				t.Fatal(err)
			}
			return res.Mode
		}
		synced := 0
		for _, h := range events {
			read()
			if m := read(); m != readcache.ModeUnchanged {
				t.Fatalf("%s: before %s/%s: %s", agent, h.Event, h.Source, m)
			}
			h.SessionID = "0b3f-9a"
			out, err := Hook(ctx, agent, &h, HookServices{ReadCache: rc, SyncRegistry: func() error { synced++; return nil }})
			if err != nil {
				t.Fatal(err)
			}
			if m := read(); m != readcache.ModeFull {
				t.Fatalf("%s: after %s/%s the read answered %s", agent, h.Event, h.Source, m)
			}
			if agent == CodexAgent && out != "" && !json.Valid([]byte(out)) {
				t.Fatalf("codex: %s/%s answered %q, not JSON", h.Event, h.Source, out)
			}
		}
		if want := strings.Count(fmt.Sprint(events), "SessionStart"); synced != want {
			t.Fatalf("%s: registry sync started %d times, want once per SessionStart (%d)", agent, synced, want)
		}
	}
}

// readHook builds Claude Code's PostToolUse input for a Read that delivered
// the whole of file (a file's bytes), as Claude Code 2.1.330 delivers it.
func readHook(path, file string, _, _ int) *HookInput {
	return claudeReadHook(path, file, 0, 0)
}

// claudeReadHook builds the PostToolUse input of Claude Code's Read of
// file (its bytes) from line offset, limit lines (0: the whole file), as
// Claude Code 2.1.330 delivers it: in claudeForm, split at "\n", the lines
// of a range joined without a last newline.
func claudeReadHook(path, file string, offset, limit int) *HookInput {
	text := claudeForm{}.Text([]byte(file))
	lines := strings.Split(text, "\n")
	start, n := 1, len(lines)
	if offset > 0 || limit > 0 {
		start = max(offset, 1)
		n = min(limit, len(lines)-start+1)
		text = strings.Join(lines[start-1:start-1+n], "\n")
	}
	resp, _ := json.Marshal(map[string]any{"type": "text", "file": map[string]any{
		"filePath": path, "content": text, "numLines": n, "startLine": start, "totalLines": len(lines)}})
	in, _ := json.Marshal(map[string]any{"file_path": path})
	return &HookInput{Event: "PostToolUse", SessionID: "c1", ToolName: "Read", ToolInput: in, ToolResponse: resp}
}

// TestReadHookReplacesOnlyWhatTheModelHas: Claude Code's Read output is
// replaced by unchanged or a diff only when the model holds the lines, in
// the tool's own output shape, and never when Read's text is not the file.
func TestReadHookReplacesOnlyWhatTheModelHas(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "line %d of a file long enough that a diff or a note is the cheaper answer\n", i)
	}
	v1 := b.String()
	write(t, path, v1)
	rc := &readcache.Service{WS: teststore.Workspace(t, dir), Store: teststore.Open(t, "", store.Options{}), Cwd: dir}
	svc := HookServices{ReadCache: rc}
	replaced := func(h *HookInput) *claudeReadOutput {
		t.Helper()
		out, err := Hook(ctx, ClaudeCodeAgent, h, svc)
		if err != nil {
			t.Fatal(err)
		}
		if out == "" {
			return nil
		}
		var reply struct {
			HookSpecificOutput struct {
				HookEventName     string           `json:"hookEventName"`
				UpdatedToolOutput claudeReadOutput `json:"updatedToolOutput"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal([]byte(out), &reply); err != nil || reply.HookSpecificOutput.HookEventName != "PostToolUse" {
			t.Fatalf("hook output %s: %v", out, err)
		}
		o := reply.HookSpecificOutput.UpdatedToolOutput
		if o.Type != "text" || o.File.FilePath != path || o.File.TotalLines != 31 {
			t.Fatalf("replacement is not Read's output shape: %+v", o)
		}
		return &o
	}
	if o := replaced(readHook(path, v1, 1, 30)); o != nil {
		t.Fatalf("first read replaced: %+v", o)
	}
	o := replaced(readHook(path, v1, 1, 30))
	if o == nil || !strings.HasPrefix(o.File.Content, "[unchanged: a.txt") {
		t.Fatalf("second read: %+v", o)
	}
	v2 := strings.Replace(v1, "line 7 of", "line seven of", 1)
	write(t, path, v2)
	o = replaced(readHook(path, v2, 1, 30))
	if o == nil || !strings.Contains(o.File.Content, "+line seven of") {
		t.Fatalf("read after an edit: %+v", o)
	}
	// Read delivered text that is not the file now (it changed in between):
	// nothing is replaced, and the model's picture of the file is erased:
	// it holds v1 as Read delivered it, which nobody vouched for.
	if o := replaced(readHook(path, v1, 1, 30)); o != nil {
		t.Fatalf("a stale Read was replaced: %+v", o)
	}
	write(t, path, v1)
	if o := replaced(readHook(path, v1, 1, 30)); o != nil {
		t.Fatalf("after a Read the hook could not match, the next one was replaced: %+v", o)
	}
	if o := replaced(readHook(path, v1, 1, 30)); o == nil || !strings.HasPrefix(o.File.Content, "[unchanged: a.txt, all 30 lines") {
		t.Fatalf("third read of v1: %+v", o)
	}
	// A range the model has seen is unchanged_range.
	if o := replaced(claudeReadHook(path, v1, 5, 5)); o == nil || o.File.Content != "[unchanged: a.txt lines 5-9, as you last read them]" {
		t.Fatalf("range read: %+v", o)
	}
}

func TestBashHookRoutesTestsAndBuilds(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // no user settings of the machine's
	for line, want := range map[string]string{
		"go test ./...":                           `freshctx run -- go test ./...`,
		"  cargo build --release":                 `  freshctx run -- cargo build --release`,
		"npx vitest run -t 'a b'":                 `freshctx run -- npx vitest run -t 'a b'`,
		"make":                                    `freshctx run -- make`,
		"go test ./... 2>&1":                      `freshctx run -- go test ./... 2>&1`,
		"FOO=1 go test ./...":                     `FOO=1 freshctx run -- go test ./...`,
		"cd sub && go test ./...":                 `cd sub && freshctx run -- go test ./...`,
		"go test ./... ; cd sub":                  `freshctx run -- go test ./... ; cd sub`,
		"go build ./... && go test ./... || cd x": `freshctx run -- go build ./... && freshctx run -- go test ./... || cd x`,
		"go testify":                              "",
		"git status":                              "",
		"freshctx run -- go test ./...":           "",
		"go test ./... 2>&1 | tail -20":           "",
		"go test ./... > out.txt":                 "",
		"x=$(go test ./...)":                      "",
		"(cd sub && go test ./...)":               "",
		"go test ./... &":                         "",
		"if true; then go test ./...; fi":         "",
		"go test <<EOF\nx\nEOF":                   "",
		"'go' test ./...":                         "",
		"go test ./... 'unterminated":             "",
	} {
		for _, agent := range []Agent{ClaudeCodeAgent, CodexAgent} {
			in, _ := json.Marshal(map[string]any{"command": line, "timeout": 60000})
			h := &HookInput{Event: "PreToolUse", ToolName: "Bash", ToolInput: in, Cwd: t.TempDir(), PermissionMode: "bypassPermissions"}
			out, err := Hook(context.Background(), agent, h, HookServices{RunCommands: []string{"go test", "go build", "cargo build", "npx vitest", "make"},
				ClaudeArgs: func() []string { return nil }})
			if err != nil {
				t.Fatal(err)
			}
			if want == "" {
				if out != "" {
					t.Errorf("%s: %q routed: %s", agent, line, out)
				}
				continue
			}
			var reply struct {
				HookSpecificOutput struct {
					PermissionDecision string         `json:"permissionDecision"`
					UpdatedInput       map[string]any `json:"updatedInput"`
				} `json:"hookSpecificOutput"`
			}
			json.Unmarshal([]byte(out), &reply)
			got := reply.HookSpecificOutput.UpdatedInput
			if got["command"] != want || got["timeout"] != float64(60000) {
				t.Errorf("%s: %q → %v, want command %q and the timeout kept", agent, line, got, want)
			}
			if decision := reply.HookSpecificOutput.PermissionDecision; decision != "allow" {
				t.Errorf("%s: permissionDecision %q", agent, decision)
			}
		}
	}
}

// TestCodexGetsHooks: init codex adds its hooks to hooks.json beside
// config.toml, keeps the user's own, and a second run changes nothing.
func TestCodexGetsHooks(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "hooks.json"), `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]}}`)
	changes, err := Codex(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(changes); err != nil {
		t.Fatal(err)
	}
	m := readJSON(t, filepath.Join(dir, "hooks.json"))
	hooks := m["hooks"].(map[string]any)
	for _, event := range []string{"SessionStart", "PreCompact", "PostCompact", "PreToolUse"} {
		if !strings.Contains(mustJSON(hooks[event]), `"freshctx hook codex"`) {
			t.Errorf("hooks.%s = %s", event, mustJSON(hooks[event]))
		}
	}
	pre := hooks["PreToolUse"].([]any)
	if len(pre) != 3 || !strings.Contains(mustJSON(pre[0]), "guard.sh") || !strings.Contains(mustJSON(pre[1]), `"matcher":"Bash"`) ||
		!strings.Contains(mustJSON(pre[2]), MCPSessionMatcher) {
		t.Errorf("PreToolUse = %s", mustJSON(pre))
	}
	codexAgainChangesNothing(t, dir)
}

// codexAgainChangesNothing runs init's plan for Codex in dir again and
// fails unless it leaves every file as it is.
func codexAgainChangesNothing(t *testing.T, dir string) {
	t.Helper()
	again, err := Codex(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range again {
		if c.Action != "unchanged" {
			t.Errorf("second run: %s %s", c.Path, c.Action)
		}
	}
}

// TestSubagentReadsAreTheirOwn: a subagent's context is its own, though its
// hooks carry the conversation's session_id: what the main thread read is
// not "unchanged" to a subagent, nor what a subagent read to the main
// thread or to another subagent; each is unchanged to itself.
func TestSubagentReadsAreTheirOwn(t *testing.T) {
	rc, path, content := readFixture(t)
	replaced := func(agentID string) bool {
		t.Helper()
		h := readHook(path, content, 1, 30)
		h.AgentID = agentID
		return claudeHook(t, rc, h) != ""
	}
	for i, step := range []struct {
		agent    string
		replaced bool
	}{
		{"", false}, {"", true}, // the main thread
		{"a7c1", false}, {"a7c1", true}, // a subagent after it
		{"b02e", false},            // another subagent
		{"", true}, {"b02e", true}, // each still holds its own read
	} {
		if got := replaced(step.agent); got != step.replaced {
			t.Fatalf("step %d (agent %q): replaced %v, want %v", i, step.agent, got, step.replaced)
		}
	}
}

// TestInitAddsTheReadToolHookToAnOlderInstall: settings written by an init
// that did not route freshctx's read tool gain that hook, in a group of its
// own, and keep the Bash one.
func TestInitAddsTheReadToolHookToAnOlderInstall(t *testing.T) {
	root := t.TempDir()
	cmd := ClaudeCodeAgent.HookCommand()
	write(t, filepath.Join(root, ".claude", "settings.json"), `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "`+cmd+`"}]}]}}`)
	changes, err := ClaudeCode(root, testRunCommands)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(changes); err != nil {
		t.Fatal(err)
	}
	pre := readJSON(t, filepath.Join(root, ".claude", "settings.json"))["hooks"].(map[string]any)["PreToolUse"].([]any)
	if len(pre) != 2 || pre[0].(map[string]any)["matcher"] != "Bash" || pre[1].(map[string]any)["matcher"] != MCPSessionMatcher {
		t.Fatalf("PreToolUse = %s", mustJSON(pre))
	}
}

// TestMCPReadIsToldItsSession: the hook on freshctx's read tool adds the
// calling context's read session and keeps the rest of the input.
func TestMCPReadIsToldItsSession(t *testing.T) {
	for _, tc := range []struct {
		name, session, agent, input, want string
	}{
		{"main thread", "c1", "", `{"path":"a.go","limit":5}`, `{"limit":5,"path":"a.go","session":"claude-c1"}`},
		{"subagent", "c1", "a7", `{"path":"a.go"}`, `{"path":"a.go","session":"claude-c1-agent-a7"}`},
		{"session refresh", "c1", "", `{"path":"a.go"}`, `{"path":"a.go","session":"claude-c1"}`},
		{"no session id", "", "", `{"path":"a.go"}`, ``},
		{"input not an object", "c1", "", `"a.go"`, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := MCPReadTool
			if tc.name == "session refresh" {
				tool = "mcp__freshctx__session_refresh"
			}
			h := &HookInput{Event: "PreToolUse", SessionID: tc.session, AgentID: tc.agent, ToolName: tool,
				ToolInput: json.RawMessage(tc.input)}
			out, err := Hook(context.Background(), ClaudeCodeAgent, h, HookServices{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if out != "" {
					t.Fatalf("answered %s", out)
				}
				return
			}
			var reply struct {
				HookSpecificOutput struct {
					HookEventName string          `json:"hookEventName"`
					UpdatedInput  json.RawMessage `json:"updatedInput"`
				} `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal([]byte(out), &reply); err != nil || reply.HookSpecificOutput.HookEventName != "PreToolUse" ||
				string(reply.HookSpecificOutput.UpdatedInput) != tc.want {
				t.Fatalf("answered %s, want updatedInput %s", out, tc.want)
			}
		})
	}
}

// TestEndedConversationsAreCollected: a subagent that stopped, and a
// conversation that ended with its subagents, leave read sessions gc
// deletes; other conversations' stay.
func TestEndedConversationsAreCollected(t *testing.T) {
	ctx := context.Background()
	rc, path, content := readFixture(t)
	hook := func(h *HookInput) { claudeHook(t, rc, h) }
	for _, c := range []struct{ session, agent string }{{"c1", ""}, {"c1", "a1"}, {"c1", "a2"}, {"c2", ""}, {"c2", "a1"}} {
		h := readHook(path, content, 1, 30)
		h.SessionID, h.AgentID = c.session, c.agent
		hook(h)
	}
	ended := func() []string {
		t.Helper()
		list, err := rc.Sessions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range list {
			if s.Ended {
				out = append(out, s.Name)
			}
		}
		return out
	}
	hook(&HookInput{Event: "SubagentStop", SessionID: "c1", AgentID: "a1"})
	if got := fmt.Sprint(ended()); got != "[claude-c1-agent-a1]" {
		t.Fatalf("after a subagent stopped, ended: %s", got)
	}
	hook(&HookInput{Event: "SessionEnd", SessionID: "c1"})
	if got := fmt.Sprint(ended()); got != "[claude-c1 claude-c1-agent-a1 claude-c1-agent-a2]" {
		t.Fatalf("after the conversation ended, ended: %s", got)
	}
	if res, err := rc.GC(ctx); err != nil || res.Sessions != 3 {
		t.Fatalf("gc: %+v %v", res, err)
	}
	list, err := rc.Sessions(ctx)
	if err != nil || len(list) != 2 || list[0].Name != "claude-c2" || list[1].Name != "claude-c2-agent-a1" {
		t.Fatalf("left after gc: %+v %v", list, err)
	}
}

// readFixture is a read cache on a folder holding a.txt, 30 lines long
// enough that the unchanged note is the cheaper answer: the file's path
// and content.
func readFixture(t *testing.T) (rc *readcache.Service, path, content string) {
	t.Helper()
	dir := t.TempDir()
	path = filepath.Join(dir, "a.txt")
	content = strings.Repeat("a line long enough that the unchanged note is the cheaper answer\n", 30)
	write(t, path, content)
	rc = &readcache.Service{WS: teststore.Workspace(t, dir), Store: teststore.Open(t, "", store.Options{}), Cwd: dir}
	return rc, path, content
}

// claudeHook answers a Claude Code hook with the read cache rc and returns
// what it printed.
func claudeHook(t *testing.T, rc *readcache.Service, h *HookInput) string {
	t.Helper()
	out, err := Hook(context.Background(), ClaudeCodeAgent, h, HookServices{ReadCache: rc})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
