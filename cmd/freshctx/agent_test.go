package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/agenttest"
	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/testrace"
)

// agentBinary is a real agent: $VAR, else name on PATH. Without it the
// agent's tests skip, saying how to install it. Under -race they skip too:
// the agent and freshctx run as processes of their own, which the race
// detector does not see, and the tests already ran without it.
func agentBinary(t testing.TB, env, name, pkg string) string {
	t.Helper()
	testrace.Skip(t, "drives separate processes")
	if p := os.Getenv(env); p != "" {
		return p
	}
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed (npm install -g %s, or set %s)", name, pkg, env)
	}
	return p
}

// claudeRig is a repository wired with `freshctx init claude-code` and the
// real Claude Code pointed at a scripted model.
type claudeRig struct {
	t      testing.TB
	claude string
	dir    string
	file   string // notes.txt, 40 lines
	env    []string
}

func newClaudeRig(t testing.TB) *claudeRig { return newClaudeRigWired(t, true) }

// newClaudeRigWired is newClaudeRig, with freshctx's init left out when
// wired is false: the same repository and agent, without freshctx.
func newClaudeRigWired(t testing.TB, wired bool) *claudeRig {
	claude := agentBinary(t, "FRESHCTX_CLAUDE", "claude", "@anthropic-ai/claude-code")
	bin := testbin.Build(t)
	r := testgit.New(t)
	r.Write("notes.txt", notesText(40))
	r.Commit("init")
	gocache, _ := exec.Command("go", "env", "GOCACHE").Output() // kept warm under the test's HOME
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GOCACHE="+strings.TrimSpace(string(gocache)), "HOME="+t.TempDir(), "ANTHROPIC_API_KEY=sk-ant-test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1")
	if wired {
		init := exec.Command(bin, "init", "claude-code")
		init.Dir, init.Env = r.Dir, env
		if out, err := init.CombinedOutput(); err != nil {
			t.Fatalf("init: %v %s", err, out)
		}
	}
	return &claudeRig{t: t, claude: claude, dir: r.Dir, file: filepath.Join(r.Dir, "notes.txt"), env: env}
}

func (c *claudeRig) read() agenttest.ToolUse {
	return agenttest.ToolUse{Name: "Read", Input: map[string]any{"file_path": c.file}}
}

// run runs claude -p with args against a model following script and
// returns the tool results the model was sent.
func (c *claudeRig) run(script []agenttest.Step, args ...string) []string {
	c.t.Helper()
	api := agenttest.NewAnthropic(c.t, script)
	c.runWith(api, args...)
	return api.ToolResults()
}

// runWith runs claude -p with args against a stand-in the caller set up.
func (c *claudeRig) runWith(api *agenttest.Anthropic, args ...string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.claude, append([]string{"-p", "Work on notes.txt.", "--allowedTools", "Read,Edit"}, args...)...)
	cmd.Dir = c.dir
	cmd.Env = append(c.env, "ANTHROPIC_BASE_URL="+api.URL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.t.Fatalf("claude: %v\n%s", err, out)
	}
}

// TestClaudeCodeReadGoesThroughTheReadCache drives the real Claude Code
// against the scripted model: its built-in Read, re-run on an unchanged
// file, reaches the model as the short note; Edit still works after that
// answer; a Read after the edit reaches the model as a diff.
func TestClaudeCodeReadGoesThroughTheReadCache(t *testing.T) {
	c := newClaudeRig(t)
	edit := agenttest.ToolUse{Name: "Edit", Input: map[string]any{"file_path": c.file,
		"old_string": "line 7 of notes.txt", "new_string": "line seven of notes.txt"}}
	results := c.run([]agenttest.Step{
		{Calls: []agenttest.ToolUse{c.read()}},
		{Calls: []agenttest.ToolUse{c.read()}},
		{Calls: []agenttest.ToolUse{edit}},
		{Calls: []agenttest.ToolUse{c.read()}},
		{Text: "done"},
	})
	if len(results) != 4 {
		t.Fatalf("the model was sent %d tool results, want 4", len(results))
	}
	if !strings.Contains(results[0], "line 40 of notes.txt") {
		t.Fatalf("first Read: the model got %q", results[0])
	}
	if !strings.Contains(results[1], "[unchanged: notes.txt") || strings.Contains(results[1], "line 40 of notes.txt") {
		t.Fatalf("second Read: the model got %q", results[1])
	}
	if b, _ := os.ReadFile(c.file); !strings.Contains(string(b), "line seven of notes.txt") {
		t.Fatalf("Edit after an unchanged answer did not apply: the model got %q", results[2])
	}
	if !strings.Contains(results[3], "+line seven of notes.txt") || strings.Contains(results[3], "line 40 of notes.txt") {
		t.Fatalf("Read after the edit: the model got %q", results[3])
	}
	t.Logf("the model got: full read %d bytes, then %q, then %d bytes of diff", len(results[0]), results[1], len(results[3]))
}

// TestClaudeCodeNewAndResumedConversationsGetContent: a file the model read
// in one conversation comes whole in a new one and in a resumed one (its
// SessionStart is a barrier), then as the note again.
func TestClaudeCodeNewAndResumedConversationsGetContent(t *testing.T) {
	c := newClaudeRig(t)
	const id = "3f0c2a58-6f44-4b4e-9d55-0d3b8c9e7a11"
	twice := []agenttest.Step{{Calls: []agenttest.ToolUse{c.read()}}, {Calls: []agenttest.ToolUse{c.read()}}, {Text: "done"}}
	for i, args := range [][]string{{"--session-id", id}, {"--resume", id}, nil} {
		results := c.run(twice, args...)
		last := results[len(results)-2:]
		if !strings.Contains(last[0], "line 40 of notes.txt") {
			t.Fatalf("run %d (%v): first Read in it got %q", i, args, last[0])
		}
		if !strings.Contains(last[1], "[unchanged: notes.txt") {
			t.Fatalf("run %d (%v): second Read got %q", i, args, last[1])
		}
	}
}

// TestClaudeCodeBashTestRunsThroughFreshctx: a Bash go test the model asks
// for runs through freshctx run; the model gets the digest with the failure
// and the footer naming the record, and the record keeps the whole output.
func TestClaudeCodeBashTestRunsThroughFreshctx(t *testing.T) {
	c := newClaudeRig(t)
	writeCalcModule(t, c.dir)
	bash := agenttest.ToolUse{Name: "Bash", Input: map[string]any{"command": "go test ./...", "description": "run the tests"}}
	results := c.run([]agenttest.Step{{Calls: []agenttest.ToolUse{bash}}, {Text: "done"}}, "--allowedTools", "Bash")
	if len(results) != 1 {
		t.Fatalf("the model was sent %d tool results, want 1", len(results))
	}
	got := results[0]
	if !strings.Contains(got, "calc_test.go:") || !strings.Contains(got, "Add(1, 2) = -1, want 3") || !strings.Contains(got, "freshctx: record 1") {
		t.Fatalf("the model got %q", got)
	}
	t.Logf("the model got %d bytes: %q", len(got), got)
}

// TestClaudeCodeStartsTheBashHookOnlyWhereItMayRoute: with the rules init
// writes, the real Claude Code starts no freshctx for a line none of
// whose commands starts with a word of hooks.run_commands, and starts it,
// and routes, for a test run alone, after a cd and after an assignment.
// A freshctx on PATH before the real one counts the hooks started.
func TestClaudeCodeStartsTheBashHookOnlyWhereItMayRoute(t *testing.T) {
	c := newClaudeRig(t)
	writeCalcModule(t, c.dir)
	log := countHooks(t, c.env, "Bash")
	var steps []agenttest.Step
	for _, l := range prefilterLines {
		steps = append(steps, agenttest.Step{Calls: []agenttest.ToolUse{{Name: "Bash",
			Input: map[string]any{"command": l.command, "description": "run it"}}}})
	}
	results := c.run(append(steps, agenttest.Step{Text: "done"}), "--allowedTools", "Bash")
	checkPrefiltered(t, results, log)
}

// prefilterLines are shell lines an agent's Bash hook sees, and whether
// freshctx routes them.
var prefilterLines = []struct {
	command string
	routed  bool
}{
	{"ls -la", false},
	{"git status --short", false},
	{"go test ./...", true},
	{"cd . && go test ./...", true},
	{"GOFLAGS=-count=1 go test ./...", true},
}

// checkPrefiltered holds what the model was sent for prefilterLines to
// their routing, and the hooks countHooks counted to the routed lines'.
func checkPrefiltered(t *testing.T, results []string, log string) {
	t.Helper()
	if len(results) != len(prefilterLines) {
		t.Fatalf("the model was sent %d tool results, want %d", len(results), len(prefilterLines))
	}
	want := 0
	for i, l := range prefilterLines {
		if got := strings.Contains(results[i], "freshctx: record"); got != l.routed {
			t.Errorf("%q: routed %v, want %v: %q", l.command, got, l.routed, results[i])
		}
		if l.routed {
			want++
		}
	}
	if hooks := startedHooks(t, log); hooks != want { // the routed lines' alone
		t.Errorf("freshctx was started for Bash %d times for %d lines, want %d", hooks, len(prefilterLines), want)
	}
}

// countHooks puts a freshctx before the real one on env's PATH that
// writes a line to the file it returns for each hook it is started for
// whose input names the tool, then runs the real one.
func countHooks(t *testing.T, env []string, tool string) string {
	t.Helper()
	i := len(env) - 1 // the last PATH is the one a command gets
	for i >= 0 && !strings.HasPrefix(env[i], "PATH=") {
		i--
	}
	path := strings.TrimPrefix(env[i], "PATH=")
	real, err := lookPathIn("freshctx", path)
	if err != nil {
		t.Fatal(err)
	}
	counter := t.TempDir()
	log := filepath.Join(t.TempDir(), "started")
	wrapper := "#!/bin/sh\nif [ \"$1\" = hook ]; then\n  in=$(cat)\n" +
		"  printf '%s\\n' \"$in\" | grep -o '\"tool_name\": *\"" + tool + "\"' >> '" + log + "'\n" +
		"  printf '%s' \"$in\" | '" + real + "' \"$@\"\n  exit $?\nfi\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(counter, "freshctx"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	env[i] = "PATH=" + counter + string(os.PathListSeparator) + path
	return log
}

// startedHooks is how many hooks countHooks counted.
func startedHooks(t *testing.T, log string) int {
	b, err := os.ReadFile(log)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// lookPathIn finds name in the folders of a PATH value.
func lookPathIn(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not on %s", name, path)
}

// writeCalcModule writes a Go module whose one test fails after 50 lines
// of chatter.
func writeCalcModule(t testing.TB, dir string) {
	t.Helper()
	for name, text := range map[string]string{
		"go.mod":  "module example.com/calc\n\ngo 1.22\n",
		"calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\n" +
			"func TestAdd(t *testing.T) {\n\tfor i := 0; i < 50; i++ {\n\t\tt.Logf(\"step %d of a chatty passing loop\", i)\n\t}\n" +
			"\tif got := Add(1, 2); got != 3 {\n\t\tt.Errorf(\"Add(1, 2) = %d, want 3\", got)\n\t}\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestClaudeCodeSubagentReadIsNotTheMainContexts: a file a subagent read is
// in the subagent's context, not the main thread's: the main thread's Read
// of it after the subagent's reaches the model whole, and its next Read as
// the note. Both contexts' hooks carry the same session_id; the subagent's
// also carry its agent_id.
func TestClaudeCodeSubagentReadIsNotTheMainContexts(t *testing.T) {
	c := newClaudeRig(t)
	agent := agenttest.ToolUse{Name: "Agent", Input: map[string]any{
		"description": "Read the notes", "prompt": "Read notes.txt and say what it holds.", "subagent_type": "general-purpose",
		"run_in_background": false}}
	api := agenttest.NewAnthropic(t, []agenttest.Step{
		{Calls: []agenttest.ToolUse{agent}},    // the main thread starts a subagent
		{Calls: []agenttest.ToolUse{c.read()}}, // the subagent reads
		{Calls: []agenttest.ToolUse{c.read()}}, // and again: the note, in its own context
		{Text: "notes.txt holds 40 numbered lines."},
		{Calls: []agenttest.ToolUse{c.read()}}, // the main thread reads
		{Calls: []agenttest.ToolUse{c.read()}},
		{Text: "done"},
	})
	c.runWith(api, "--allowedTools", "Agent")
	results := api.ToolResults()
	var reads []string // the Agent's own result is the subagent's report
	for _, r := range results {
		if strings.Contains(r, "line 1 of notes.txt") || strings.Contains(r, "[unchanged: notes.txt") {
			reads = append(reads, r)
		}
	}
	if len(reads) != 4 {
		t.Fatalf("the model was sent %d Read results, want 4 (all results: %q)", len(reads), results)
	}
	whole := func(s string) bool { return strings.Contains(s, "line 40 of notes.txt") }
	note := func(s string) bool { return strings.Contains(s, "[unchanged: notes.txt") && !whole(s) }
	if !whole(reads[0]) || !note(reads[1]) {
		t.Fatalf("the subagent got %q, then %q", reads[0], reads[1])
	}
	if !whole(reads[2]) {
		t.Fatalf("the main thread's first Read after the subagent's: the model got %q", reads[2])
	}
	if !note(reads[3]) {
		t.Fatalf("the main thread's second Read: the model got %q", reads[3])
	}
	// The subagent stopped and the conversation ended: gc may delete both
	// read sessions.
	out, err := exec.Command(testbin.Build(t), "--root", c.dir, "session", "list", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Sessions []struct {
			Name  string `json:"name"`
			Ended bool   `json:"ended"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	ended := 0
	for _, s := range list.Sessions {
		if strings.HasPrefix(s.Name, "claude-") && s.Ended {
			ended++
		}
	}
	if ended != 2 {
		t.Fatalf("want the conversation's and the subagent's sessions ended: %s", out)
	}
}

// TestClaudeCodeSubagentMCPReadIsNotTheMainContexts: freshctx's own read
// tool, served to the main thread and a subagent over one MCP connection,
// keeps their contexts apart: the hook names each call's read session. The
// subagent's first read of a file the main thread read is whole, its second
// the note; the main thread's next read is the note.
func TestClaudeCodeSubagentMCPReadIsNotTheMainContexts(t *testing.T) {
	c := newClaudeRig(t)
	read := agenttest.ToolUse{Name: "mcp__freshctx__read", Input: map[string]any{"path": "notes.txt"}}
	agent := agenttest.ToolUse{Name: "Agent", Input: map[string]any{
		"description": "Read the notes", "prompt": "Read notes.txt and say what it holds.", "subagent_type": "general-purpose",
		"run_in_background": false}}
	api := agenttest.NewAnthropic(t, []agenttest.Step{
		{Calls: []agenttest.ToolUse{read}},  // the main thread reads
		{Calls: []agenttest.ToolUse{agent}}, // and starts a subagent
		{Calls: []agenttest.ToolUse{read}},  // the subagent reads
		{Calls: []agenttest.ToolUse{read}},
		{Text: "notes.txt holds 40 numbered lines."},
		{Calls: []agenttest.ToolUse{read}}, // the main thread again
		{Text: "done"},
	})
	c.runWith(api, "--allowedTools", "Agent,mcp__freshctx__read", "--mcp-config", filepath.Join(c.dir, ".mcp.json"))
	var reads []string
	for _, r := range api.ToolResults() {
		if strings.Contains(r, "line 1 of notes.txt") || strings.Contains(r, "unchanged: notes.txt") {
			reads = append(reads, r)
		}
	}
	whole := func(s string) bool { return strings.Contains(s, "line 40 of notes.txt") }
	note := func(s string) bool { return strings.Contains(s, "[unchanged: notes.txt") && !whole(s) }
	if len(reads) != 4 || !whole(reads[0]) || !whole(reads[1]) || !note(reads[2]) || !note(reads[3]) {
		for i, r := range reads {
			t.Logf("read %d: %d bytes, ends %q", i, len(r), r[max(0, len(r)-80):])
		}
		t.Fatalf("want whole (main), whole and the note (subagent), the note (main)")
	}
}

// TestClaudeCodeCRLFFile: Claude Code's Read drops the "\r" of a CRLF
// file; freshctx records what Read delivered, so the second Read of the
// unchanged file is the note, a change made in between reaches the model
// (as a diff or whole), and when the file goes back to what the model read
// first, the model — whose latest copy is the changed one — is not told
// [unchanged].
func TestClaudeCodeCRLFFile(t *testing.T) {
	c := newClaudeRig(t)
	a := strings.ReplaceAll(notesText(40), "\n", "\r\n")
	if err := os.WriteFile(c.file, []byte(a), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.dir, "a.txt"), []byte(a), 0o644); err != nil {
		t.Fatal(err)
	}
	b := strings.Replace(a, "line 7 of", "line seven of", 1)
	if err := os.WriteFile(filepath.Join(c.dir, "b.txt"), []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	bash := func(line string) agenttest.ToolUse {
		return agenttest.ToolUse{Name: "Bash", Input: map[string]any{"command": line, "description": "set the notes"}}
	}
	results := c.run([]agenttest.Step{
		{Calls: []agenttest.ToolUse{c.read()}},
		{Calls: []agenttest.ToolUse{c.read()}},
		{Calls: []agenttest.ToolUse{bash("cp b.txt notes.txt")}},
		{Calls: []agenttest.ToolUse{c.read()}},
		{Calls: []agenttest.ToolUse{bash("cp a.txt notes.txt")}},
		{Calls: []agenttest.ToolUse{c.read()}},
		{Text: "done"},
	}, "--allowedTools", "Bash")
	if len(results) != 6 {
		t.Fatalf("the model was sent %d tool results, want 6: %q", len(results), results)
	}
	if !strings.Contains(results[0], "line 40 of notes.txt") || strings.Contains(results[0], "\r") {
		t.Fatalf("first Read: %q", results[0])
	}
	if !strings.Contains(results[1], "[unchanged: notes.txt") {
		t.Fatalf("second Read of the unchanged CRLF file: %q", results[1])
	}
	if !strings.Contains(results[3], "line seven of") || strings.Contains(results[3], "[unchanged") {
		t.Fatalf("Read after the change: %q", results[3])
	}
	if strings.Contains(results[5], "[unchanged") || !strings.Contains(results[5], "line 7 of") {
		t.Fatalf("Read after the file went back: %q", results[5])
	}
}

// TestClaudeCodeAllowRuleKeepsItsMeaning: with "allow": ["Bash(go test:*)"]
// in the project's settings and nothing on the command line, headless
// Claude Code runs the model's go test without asking — through freshctx
// run — and a command no rule allows is still refused, not rewritten into
// something allowed.
func TestClaudeCodeAllowRuleKeepsItsMeaning(t *testing.T) {
	c := newClaudeRig(t)
	writeCalcModule(t, c.dir)
	settings := filepath.Join(c.dir, ".claude", "settings.json")
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["permissions"] = map[string]any{"allow": []any{"Bash(go test:*)"}}
	b, _ = json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(settings, b, 0o644); err != nil {
		t.Fatal(err)
	}
	bash := func(line string) agenttest.ToolUse {
		return agenttest.ToolUse{Name: "Bash", Input: map[string]any{"command": line, "description": "run it"}}
	}
	results := c.run([]agenttest.Step{{Calls: []agenttest.ToolUse{bash("go test ./...")}}, {Calls: []agenttest.ToolUse{bash("go build ./...")}},
		{Text: "done"}}, "--allowedTools", "Read")
	if len(results) != 2 {
		t.Fatalf("the model was sent %d tool results, want 2: %q", len(results), results)
	}
	if !strings.Contains(results[0], "Add(1, 2) = -1, want 3") || !strings.Contains(results[0], "freshctx: record 1") {
		t.Fatalf("go test, allowed by the rule: the model got %q", results[0])
	}
	if low := strings.ToLower(results[1]); strings.Contains(low, "freshctx: record") || !strings.Contains(low, "approval") && !strings.Contains(low, "permission") {
		t.Fatalf("go build, which no rule allows: the model got %q", results[1])
	}
	t.Logf("go build, not allowed: %q", results[1])
}

// TestClaudeCodeParallelReads: the model asks for several Reads in one
// message, which Claude Code runs at once, so their hooks record and
// deliver in whatever order they finish (and their results reach the model
// in that order). Each answer must still be what the model holds: two files
// read at once come whole, then as the note; after an edit of one, a Read
// of each at once brings the edit's diff and the other's note; two Reads of
// one file at once, beside a Read of the other, are all the note; an edit
// asked for beside a Read of the other file reaches the model with the
// next Read of the edited one.
func TestClaudeCodeParallelReads(t *testing.T) {
	c := newClaudeRig(t)
	other := filepath.Join(c.dir, "other.txt")
	if err := os.WriteFile(other, []byte(strings.ReplaceAll(notesText(40), "notes.txt", "other.txt")), 0o644); err != nil {
		t.Fatal(err)
	}
	readOther := agenttest.ToolUse{Name: "Read", Input: map[string]any{"file_path": other}}
	edit := agenttest.ToolUse{Name: "Edit", Input: map[string]any{"file_path": c.file,
		"old_string": "line 7 of notes.txt", "new_string": "line seven of notes.txt"}}
	edit8 := agenttest.ToolUse{Name: "Edit", Input: map[string]any{"file_path": c.file,
		"old_string": "line 8 of notes.txt", "new_string": "line eight of notes.txt"}}
	api := agenttest.NewAnthropic(t, []agenttest.Step{
		{Calls: []agenttest.ToolUse{c.read(), readOther}},
		{Calls: []agenttest.ToolUse{c.read(), readOther}},
		{Calls: []agenttest.ToolUse{edit}},
		{Calls: []agenttest.ToolUse{c.read(), readOther}},
		{Calls: []agenttest.ToolUse{c.read(), c.read(), readOther}},
		{Calls: []agenttest.ToolUse{readOther, edit8}},
		{Calls: []agenttest.ToolUse{c.read()}},
		{Text: "done"},
	})
	c.runWith(api)
	steps := byCall(t, api.Results())
	if len(steps) != 7 {
		t.Fatalf("the model was sent results of %d messages' tool calls, want 7: %q", len(steps), steps)
	}
	whole := func(s, name string) bool { return strings.Contains(s, "line 40 of "+name) }
	note := func(s, name string) bool { return strings.Contains(s, "[unchanged: "+name) && !whole(s, name) }
	want := []struct {
		what string
		ok   bool
	}{
		{"both files whole", whole(steps[0][0], "notes.txt") && whole(steps[0][1], "other.txt")},
		{"both as the note", note(steps[1][0], "notes.txt") && note(steps[1][1], "other.txt")},
		{"the edit applied", strings.Contains(steps[2][0], "updated successfully")},
		{"notes.txt's edit as a diff", strings.Contains(steps[3][0], "+line seven of notes.txt") && !whole(steps[3][0], "notes.txt")},
		{"other.txt as the note beside the diff", note(steps[3][1], "other.txt")},
		{"notes.txt as the note, read twice at once", note(steps[4][0], "notes.txt") && note(steps[4][1], "notes.txt")},
		{"other.txt as the note beside them", note(steps[4][2], "other.txt")},
		{"other.txt as the note beside the second edit", note(steps[5][0], "other.txt")},
		{"the second edit applied", strings.Contains(steps[5][1], "updated successfully")},
		{"the second edit reaching the model", strings.Contains(steps[6][0], "line eight of notes.txt") && !note(steps[6][0], "notes.txt")},
	}
	for _, w := range want {
		if !w.ok {
			t.Errorf("want %s", w.what)
		}
	}
	for i, r := range api.Results() {
		t.Logf("result %d (%s): %d bytes, starts %q", i, r.ID, len(r.Text), r.Text[:min(len(r.Text), 60)])
	}
}

// byCall groups the tool results the model was sent by the message that
// asked for them, in the order of the calls in it (the stand-in numbers
// each call toolu_MESSAGE_CALL), whatever order they came back in.
func byCall(t *testing.T, results []agenttest.ToolResult) [][]string {
	t.Helper()
	var steps [][]string
	index := map[string]int{}
	for _, r := range results {
		var msg, call int
		if _, err := fmt.Sscanf(r.ID, "toolu_%d_%d", &msg, &call); err != nil {
			t.Fatalf("tool result for %q: %v", r.ID, err)
		}
		key := fmt.Sprint(msg)
		k, ok := index[key]
		if !ok {
			k = len(steps)
			index[key] = k
			steps = append(steps, nil)
		}
		for len(steps[k]) <= call {
			steps[k] = append(steps[k], "")
		}
		steps[k][call] = r.Text
	}
	return steps
}
