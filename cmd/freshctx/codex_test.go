package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/agenttest"
	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testgit"
)

// codexRig is a repository and a Codex home wired with `freshctx init
// codex`, and the real Codex pointed at a scripted Responses API.
type codexRig struct {
	t     *testing.T
	codex string
	dir   string
	home  string // CODEX_HOME
	env   []string
	// resume makes the next run continue the last conversation.
	resume bool
	// untrusted runs Codex as a user who has not trusted the hooks yet.
	untrusted bool
}

func newCodexRig(t *testing.T) *codexRig {
	codex := agentBinary(t, "FRESHCTX_CODEX", "codex", "@openai/codex")
	bin := testbin.Build(t)
	r := testgit.New(t)
	r.Write("notes.txt", notesText(40))
	r.Write("big.txt", strings.ReplaceAll(notesText(600), "notes.txt", "big.txt"))
	r.Commit("init")
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	gocache, _ := exec.Command("go", "env", "GOCACHE").Output()
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GOCACHE="+strings.TrimSpace(string(gocache)), "HOME="+home, "CODEX_HOME="+codexHome, "STANDIN_API_KEY=sk-test")
	// Codex runs commands in a login shell, which sets PATH anew from
	// the profile: give it the test's (go, and the freshctx under test).
	path := filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")
	if err := os.WriteFile(filepath.Join(home, ".profile"), []byte("export PATH='"+path+"'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	init := exec.Command(bin, "init", "codex")
	init.Dir, init.Env = r.Dir, env
	if out, err := init.CombinedOutput(); err != nil {
		t.Fatalf("init: %v %s", err, out)
	}
	return &codexRig{t: t, codex: codex, dir: r.Dir, home: codexHome, env: env}
}

// notesText is a file of n lines, long enough that re-sending it costs
// real tokens.
func notesText(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d of notes.txt, long enough that re-sending it costs real tokens\n", i)
	}
	return b.String()
}

// run runs codex exec against a model following script, with extra config
// lines for the stand-in provider, and returns the stand-in.
func (c *codexRig) run(script []agenttest.Step, config ...string) *agenttest.OpenAI {
	c.t.Helper()
	return c.runWith(agenttest.NewOpenAI(c.t, script), config...)
}

// runWith is run against a stand-in the caller set up.
func (c *codexRig) runWith(api *agenttest.OpenAI, config ...string) *agenttest.OpenAI {
	c.t.Helper()
	args := []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"}
	if !c.untrusted {
		args = append(args, "--dangerously-bypass-hook-trust")
	}
	args = append(args, "-c", `model="gpt-5.1-codex"`, "-c", `model_provider="standin"`,
		"-c", `model_providers.standin={name="stand-in", base_url="`+api.URL+`", wire_api="responses", env_key="STANDIN_API_KEY"}`)
	for _, kv := range config {
		args = append(args, "-c", kv)
	}
	if c.resume {
		args = append(args, "resume", "--last")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.codex, append(args, "Work on notes.txt.")...)
	cmd.Dir, cmd.Env = c.dir, c.env
	out, err := cmd.CombinedOutput()
	if os.Getenv("FRESHCTX_AGENT_DEBUG") != "" {
		c.t.Logf("codex: %s", out)
		for i, b := range api.Requests() {
			os.WriteFile(filepath.Join(os.TempDir(), fmt.Sprintf("codex-req-%d.json", i)), b, 0o644)
		}
	}
	if err != nil {
		c.t.Fatalf("codex: %v\n%s", err, out)
	}
	return api
}

func shell(line string) agenttest.ToolUse {
	return agenttest.ToolUse{Name: "exec_command", Input: map[string]any{"cmd": line}}
}

func mcpRead(path string) agenttest.ToolUse {
	return agenttest.ToolUse{Name: "read", Namespace: "mcp__freshctx", Input: map[string]any{"path": path}}
}

// TestCodexReadsThroughTheReadCache drives the real Codex against the
// scripted model: freshctx's read tool answers a re-read of an unchanged
// file with the note, a read after a shell edit with a diff, and a large
// file in pages Codex delivers whole (Codex drops the middle of a tool
// result over its budget; a page it cut must never be trusted).
func TestCodexReadsThroughTheReadCache(t *testing.T) {
	c := newCodexRig(t)
	api := c.run([]agenttest.Step{
		{Calls: []agenttest.ToolUse{mcpRead("notes.txt")}},
		{Calls: []agenttest.ToolUse{mcpRead("notes.txt")}},
		{Calls: []agenttest.ToolUse{shell("sed -i 's/line 7 of/line seven of/' notes.txt")}},
		{Calls: []agenttest.ToolUse{mcpRead("notes.txt")}},
		{Calls: []agenttest.ToolUse{mcpRead("big.txt")}},
		{Calls: []agenttest.ToolUse{mcpRead("big.txt")}},
		{Text: "done"},
	})
	got := api.ToolResults()
	if len(got) != 6 {
		t.Fatalf("the model was sent %d tool results, want 6: %q", len(got), got)
	}
	if !strings.Contains(got[0], "line 40 of notes.txt") {
		t.Fatalf("first read: the model got %q", got[0])
	}
	if !strings.Contains(got[1], "[unchanged: notes.txt") || strings.Contains(got[1], "line 40 of notes.txt") {
		t.Fatalf("second read: the model got %q", got[1])
	}
	if !strings.Contains(got[3], "+line seven of notes.txt") || strings.Contains(got[3], "line 40 of notes.txt") {
		t.Fatalf("read after the edit: the model got %q", got[3])
	}
	// The first page must reach the model whole: every line it says it
	// shows, in order (Codex cuts the middle of an answer over its budget).
	var shown int
	_, note, ok := strings.Cut(got[4], "[truncated: lines 1-")
	if _, err := fmt.Sscanf(note, "%d", &shown); !ok || err != nil || shown < 2 {
		t.Fatalf("big.txt: no page note in what the model got: %q", got[4][max(0, len(got[4])-300):])
	}
	at := 0
	for i := 1; i <= shown; i++ {
		j := strings.Index(got[4][at:], fmt.Sprintf("%6d\tline %d of big.txt", i, i))
		if j < 0 {
			t.Fatalf("big.txt: line %d of the %d the page shows did not reach the model", i, shown)
		}
		at += j
	}
	if !strings.Contains(got[5], fmt.Sprintf("[unchanged: big.txt lines 1-%d", shown)) {
		t.Fatalf("big.txt re-read: the model got %q", got[5])
	}
	t.Logf("the model got: full read %d bytes, then %q, then %d bytes of diff", len(got[0]), got[1], len(got[3]))
}

// TestCodexCompactionIsABarrier: after Codex compacts its context (its
// PreCompact and PostCompact hooks), freshctx's read answers with the
// content again.
func TestCodexCompactionIsABarrier(t *testing.T) {
	c := newCodexRig(t)
	api := c.run([]agenttest.Step{
		{Calls: []agenttest.ToolUse{mcpRead("notes.txt")}},
		{Calls: []agenttest.ToolUse{mcpRead("notes.txt")}, InputTokens: 300000},
		{Calls: []agenttest.ToolUse{mcpRead("notes.txt")}},
		{Calls: []agenttest.ToolUse{mcpRead("notes.txt")}},
		{Text: "done"},
	}, "model_auto_compact_token_limit=50000")
	got := api.ToolResults()
	if len(got) != 4 {
		t.Fatalf("the model was sent %d tool results, want 4: %q", len(got), got)
	}
	for i, want := range []string{"line 40 of notes.txt", "[unchanged: notes.txt", "line 40 of notes.txt", "[unchanged: notes.txt"} {
		if !strings.Contains(got[i], want) {
			t.Fatalf("read %d: the model got %q, want %q", i+1, got[i], want)
		}
	}
}

// TestCodexHooksBeforeAndAfterTrust: until the user trusts freshctx's
// hooks Codex runs none of them, so no context reset reaches freshctx: its
// read tool answers every read with content, also after an automatic
// compaction. Once they are trusted the second read is the note.
func TestCodexHooksBeforeAndAfterTrust(t *testing.T) {
	c := newCodexRig(t)
	c.untrusted = true
	api := c.run([]agenttest.Step{
		{Calls: []agenttest.ToolUse{mcpRead("notes.txt")}},
		{Calls: []agenttest.ToolUse{mcpRead("notes.txt")}, InputTokens: 300000},
		{Calls: []agenttest.ToolUse{mcpRead("notes.txt")}},
		{Text: "done"},
	}, "model_auto_compact_token_limit=50000")
	got := api.ToolResults()
	if len(got) != 3 {
		t.Fatalf("the model was sent %d tool results, want 3: %q", len(got), got)
	}
	for i, r := range got {
		if !strings.Contains(r, "line 40 of notes.txt") || strings.Contains(r, "unchanged") {
			t.Fatalf("untrusted hooks, read %d: the model got %q", i+1, r)
		}
	}
	c.untrusted = false
	got = c.run([]agenttest.Step{
		{Calls: []agenttest.ToolUse{mcpRead("notes.txt")}},
		{Calls: []agenttest.ToolUse{mcpRead("notes.txt")}},
		{Text: "done"},
	}).ToolResults()
	if len(got) != 2 || !strings.Contains(got[0], "line 40 of notes.txt") || !strings.Contains(got[1], "[unchanged: notes.txt") {
		t.Fatalf("trusted hooks: the model got %q", got)
	}
}

// TestCodexResumedConversationGetsContent: a conversation Codex resumes
// (its SessionStart with source resume) gets a file it read before whole,
// then the note again.
func TestCodexResumedConversationGetsContent(t *testing.T) {
	c := newCodexRig(t)
	twice := []agenttest.Step{{Calls: []agenttest.ToolUse{mcpRead("notes.txt")}}, {Calls: []agenttest.ToolUse{mcpRead("notes.txt")}}, {Text: "done"}}
	for i := range 2 {
		got := c.run(twice).ToolResults()
		if want := 2 + 2*i; len(got) != want {
			t.Fatalf("run %d: the model was sent %d tool results, want %d (a resumed conversation carries the first two)", i, len(got), want)
		}
		last := got[len(got)-2:]
		if !strings.Contains(last[0], "line 40 of notes.txt") || !strings.Contains(last[1], "[unchanged: notes.txt") {
			t.Fatalf("run %d (resume=%v): the model got %q then %q", i, c.resume, last[0], last[1])
		}
		c.resume = true
	}
}

// TestCodexBashTestRunsThroughFreshctx: a shell go test the model asks for
// runs through freshctx run (Codex's PreToolUse rewrite); the model gets
// the digest with the failure and the footer naming the record.
func TestCodexBashTestRunsThroughFreshctx(t *testing.T) {
	c := newCodexRig(t)
	writeCalcModule(t, c.dir)
	got := c.run([]agenttest.Step{{Calls: []agenttest.ToolUse{shell("go test ./...")}}, {Text: "done"}}).ToolResults()
	if len(got) != 1 {
		t.Fatalf("the model was sent %d tool results, want 1", len(got))
	}
	if !strings.Contains(got[0], "calc_test.go:") || !strings.Contains(got[0], "Add(1, 2) = -1, want 3") || !strings.Contains(got[0], "freshctx: record 1") {
		t.Fatalf("the model got %q", got[0])
	}
	t.Logf("the model got %d bytes: %q", len(got[0]), got[0])
}

// TestCodexStartsFreshctxOnlyWhereItMayRoute drives the real Codex: the
// prefilter init puts in its Bash group (codexBashCommand) answers `ls`
// and `git status` itself, without starting freshctx, and every test line
// reaches freshctx and is routed.
func TestCodexStartsFreshctxOnlyWhereItMayRoute(t *testing.T) {
	c := newCodexRig(t)
	writeCalcModule(t, c.dir)
	log := countHooks(t, c.env, "Bash")
	var steps []agenttest.Step
	for _, l := range prefilterLines {
		steps = append(steps, agenttest.Step{Calls: []agenttest.ToolUse{shell(l.command)}})
	}
	checkPrefiltered(t, c.run(append(steps, agenttest.Step{Text: "done"})).ToolResults(), log)
}
