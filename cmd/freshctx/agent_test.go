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
	"github.com/freshctx/freshctx/internal/testgit"
)

// claudeBinary is the real Claude Code: $FRESHCTX_CLAUDE, else claude on
// PATH. Without it the agent tests skip, saying so.
func claudeBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("FRESHCTX_CLAUDE"); p != "" {
		return p
	}
	p, err := exec.LookPath("claude")
	if err != nil {
		t.Skip("Claude Code is not installed (npm install -g @anthropic-ai/claude-code, or set FRESHCTX_CLAUDE)")
	}
	return p
}

// TestClaudeCodeReadGoesThroughTheReadCache drives the real Claude Code
// against the scripted model: its built-in Read, re-run on an unchanged
// file, reaches the model as the short note; Edit still works after that
// answer; a Read after the edit reaches the model as a diff.
func TestClaudeCodeReadGoesThroughTheReadCache(t *testing.T) {
	claude := claudeBinary(t)
	bin := buildBinary(t)
	r := testgit.New(t)
	var b strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "line %d of notes.txt, long enough that re-sending it costs real tokens\n", i)
	}
	r.Write("notes.txt", b.String())
	r.Commit("init")
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	init := exec.Command(bin, "init", "claude-code")
	init.Dir, init.Env = r.Dir, env
	if out, err := init.CombinedOutput(); err != nil {
		t.Fatalf("init: %v %s", err, out)
	}
	file := filepath.Join(r.Dir, "notes.txt")
	read := agenttest.ToolUse{Name: "Read", Input: map[string]any{"file_path": file}}
	edit := agenttest.ToolUse{Name: "Edit", Input: map[string]any{"file_path": file,
		"old_string": "line 7 of notes.txt", "new_string": "line seven of notes.txt"}}
	api := agenttest.NewAnthropic(t, []agenttest.Step{
		{Calls: []agenttest.ToolUse{read}},
		{Calls: []agenttest.ToolUse{read}},
		{Calls: []agenttest.ToolUse{edit}},
		{Calls: []agenttest.ToolUse{read}},
		{Text: "done"},
	})
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "Read notes.txt twice.", "--allowedTools", "Read,Edit")
	cmd.Dir = r.Dir
	cmd.Env = append(env, "HOME="+home, "ANTHROPIC_BASE_URL="+api.URL, "ANTHROPIC_API_KEY=sk-ant-test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	results := api.ToolResults()
	if len(results) != 4 {
		t.Fatalf("the model was sent %d tool results, want 4 (claude said %s)", len(results), out)
	}
	if !strings.Contains(results[0], "line 40 of notes.txt") {
		t.Fatalf("first Read: the model got %q", results[0])
	}
	if !strings.Contains(results[1], "[unchanged: notes.txt") || strings.Contains(results[1], "line 40 of notes.txt") {
		t.Fatalf("second Read: the model got %q", results[1])
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), "line seven of notes.txt") {
		t.Fatalf("Edit after an unchanged answer did not apply: the model got %q", results[2])
	}
	if !strings.Contains(results[3], "+line seven of notes.txt") || strings.Contains(results[3], "line 40 of notes.txt") {
		t.Fatalf("Read after the edit: the model got %q", results[3])
	}
	t.Logf("the model got: full read %d bytes, then %q, then %d bytes of diff", len(results[0]), results[1], len(results[3]))
}
