package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/tokens"
)

// mcpSession starts the real binary as an MCP server in dir and connects
// the SDK's client to it over stdio.
func mcpSession(t *testing.T, dir string, args ...string) *mcp.ClientSession {
	t.Helper()
	return mcpSessionAs(t, dir, "test", args...)
}

// mcpSessionAs is mcpSession for a client that names itself client.
func mcpSessionAs(t *testing.T, dir, client string, args ...string) *mcp.ClientSession {
	t.Helper()
	bin := testbin.Build(t)
	cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: client, Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		t.Fatalf("%s failed: %s", name, text)
	}
	var out map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &out)
	return text, out
}

func TestMCPEndToEnd(t *testing.T) {
	r := testgit.New(t)
	r.Write("calc.go", "package calc\n\nfunc Add(a, b int) int { return a - b }\n")
	r.Commit("init")
	// The operator names the read session, and so owns its barriers.
	cs := mcpSession(t, r.Dir, "--structured", "--session", "e2e")
	ctx := context.Background()

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 18 {
		t.Fatalf("%d tools", len(list.Tools))
	}

	text, rec := call(t, cs, "run", map[string]any{"command": "echo 'calc.go:3: Add(1, 2) = -1, want 3'; exit 1"})
	if rec["exit_code"].(float64) != 1 || !strings.Contains(text, "calc.go:3: Add(1, 2) = -1") || !strings.Contains(text, "freshctx: record 1") {
		t.Fatalf("run: %s %v", text, rec)
	}
	_, hits := call(t, cs, "recall", map[string]any{"query": "Add want"})
	if first := hits["results"].([]any)[0].(map[string]any); first["freshness"].(map[string]any)["label"] != "fresh" {
		t.Fatalf("recall: %v", first)
	}
	r.Write("calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n")
	text, hits = call(t, cs, "recall", map[string]any{"query": "Add want"})
	if first := hits["results"].([]any)[0].(map[string]any); first["freshness"].(map[string]any)["label"] != "stale_changed" || !strings.Contains(text, "stale_changed calc.go") {
		t.Fatalf("recall after the edit: %s", text)
	}

	_, read := call(t, cs, "read", map[string]any{"path": "calc.go"})
	if read["mode"] != "full" {
		t.Fatalf("first read: %v", read)
	}
	text, read = call(t, cs, "read", map[string]any{"path": "calc.go"})
	if read["mode"] != "unchanged" || !strings.HasPrefix(text, "[unchanged") {
		t.Fatalf("second read: %s", text)
	}
	call(t, cs, "session_compact", nil)
	if _, read = call(t, cs, "read", map[string]any{"path": "calc.go"}); read["mode"] != "full" {
		t.Fatalf("read after compaction: %v", read)
	}

	if _, sync := call(t, cs, "registry_sync", nil); sync["action"] != "bootstrap" {
		t.Fatalf("registry_sync: %v", sync)
	}
	call(t, cs, "artifact_put", map[string]any{"type": "file_summary", "key": "calc.go", "content": "Adds ints."})
	if text, got := call(t, cs, "artifact_get", map[string]any{"type": "file_summary", "key": "calc.go"}); got["outcome"] != "hit" || !strings.Contains(text, "Adds ints.") {
		t.Fatalf("artifact_get: %s", text)
	}
}

// TestMCPAnswersAreText: without --structured an answer is its text alone
// (agents pass structured content to the model too), run keeps the command
// as written, and list, stats and registry_list read back what was kept.
func TestMCPAnswersAreText(t *testing.T) {
	r := testgit.New(t)
	r.Write("calc.go", "package calc\n")
	r.Commit("init")
	cs := mcpSession(t, r.Dir)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"command": "echo 'calc.go:1: odd' && true"}})
	if err != nil || res.IsError {
		t.Fatalf("run: %+v, %v", res, err)
	}
	if res.StructuredContent != nil {
		t.Fatalf("structured content without --structured: %v", res.StructuredContent)
	}
	text, _ := call(t, cs, "list", nil)
	if !strings.Contains(text, "echo 'calc.go:1: odd' && true") || strings.Contains(text, "sh -c") {
		t.Fatalf("list shows the command as run, not as written:\n%s", text)
	}
	if text, _ := call(t, cs, "stats", nil); !strings.Contains(text, "1 record ·") {
		t.Fatalf("stats: %s", text)
	}
	call(t, cs, "registry_sync", nil)
	call(t, cs, "registry_summarize", map[string]any{"items": []map[string]string{{"path": "calc.go", "summary": "The calc package."}}})
	if text, _ := call(t, cs, "registry_list", nil); !strings.Contains(text, "The calc package.") {
		t.Fatalf("registry_list does not read back the summary: %s", text)
	}
}

func TestMCPErrorsKeepTheServerServing(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.go", "package a\n")
	r.Commit("init")
	cs := mcpSession(t, r.Dir)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "show", Arguments: map[string]any{"id": 99}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "freshctx: record 99: no such record") {
		t.Fatalf("show 99: %+v, %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "../outside"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "outside the workspace root") {
		t.Fatalf("read outside: %+v, %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"limit": "ten"}})
	if err != nil || !res.IsError {
		t.Fatalf("bad argument types: %+v, %v", res, err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Fatal("an unknown tool was called")
	}
	// Still serving.
	call(t, cs, "read", map[string]any{"path": "a.go"})
}

// TestToolListIsSmall measures what tools/list costs a model with the real
// tokenizer: every tool together at most 2,500 tokens.
func TestToolListIsSmall(t *testing.T) {
	r := testgit.New(t)
	cs := mcpSession(t, r.Dir)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(list.Tools)
	if err != nil {
		t.Fatal(err)
	}
	n := tokens.Count(string(b))
	t.Logf("tools/list: %d tools, %d tokens", len(list.Tools), n)
	if n > 1000 {
		t.Fatalf("tools/list costs %d tokens, want at most 1,000", n)
	}
	sub := mcpSession(t, r.Dir, "--tools", "read,recall")
	if l, _ := sub.ListTools(context.Background(), nil); len(l.Tools) != 2 {
		t.Fatalf("--tools read,recall served %d tools", len(l.Tools))
	}
}

// TestMCPSurvivesMalformedInput writes garbage to the server's stdin, then
// a valid request, and expects an answer to it.
func TestMCPSurvivesMalformedInput(t *testing.T) {
	r := testgit.New(t)
	bin := testbin.Build(t)
	cmd := exec.Command(bin, "mcp")
	cmd.Dir = r.Dir
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	defer stdin.Close() // keeps the pipe reachable: collected, it would close and end the server
	io.WriteString(stdin, "this is not json\n{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"nonsense\"}\n")
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`+"\n")
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	deadline := time.After(10 * time.Second)
	lines := make(chan string)
	go func() {
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the server stopped: %s", stderr.String())
			}
			if strings.Contains(l, `"id":7`) && strings.Contains(l, `"serverInfo"`) {
				return
			}
		case <-deadline:
			t.Fatal("no answer to a valid request after malformed input")
		}
	}
}

// TestMCPReadFitsCodexBudget: Codex drops the middle of a tool result over
// its budget, so a read it is served stays under that budget and pages
// (a read the model got part of must never count as delivered); other
// clients get the plain read tool's limits.
func TestMCPReadFitsCodexBudget(t *testing.T) {
	r := testgit.New(t)
	var b strings.Builder
	for i := 1; i <= 600; i++ {
		b.WriteString(strings.Repeat("x", 60) + " line\n")
	}
	r.Write("big.txt", b.String())
	r.Commit("init")
	codex := mcpSessionAs(t, r.Dir, "codex-mcp-client")
	text, _ := call(t, codex, "read", map[string]any{"path": "big.txt"})
	if len(text) > 8000 || !strings.Contains(text, "[truncated: lines 1-") || !strings.Contains(text, "continue with big.txt:") {
		t.Fatalf("Codex got %d bytes, ending %q", len(text), text[max(0, len(text)-200):])
	}
	other := mcpSessionAs(t, r.Dir, "claude-code")
	if text, _ := call(t, other, "read", map[string]any{"path": "big.txt"}); strings.Contains(text, "[truncated") || !strings.Contains(text, "   600\t") {
		t.Fatalf("another client got %d bytes, ending %q", len(text), text[max(0, len(text)-200):])
	}
}

// TestMCPReadsNeedABarrierSource: a note is right only while every
// context reset reaches the session, which a server cannot see. A read its
// client's hook did not name a session for (Claude Code's subagents share
// its connection; Codex before its hooks are trusted; a client without
// hooks) is served whole every time; one with the hook's session is
// unchanged the second time, in that session only.
func TestMCPReadsNeedABarrierSource(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.txt", strings.Repeat("a line of the file, long enough to be worth a note\n", 40))
	r.Commit("init")
	cs := mcpSessionAs(t, r.Dir, "claude-code")
	read := func(session string) string {
		args := map[string]any{"path": "a.txt"}
		if session != "" {
			args["session"] = session
		}
		text, _ := call(t, cs, "read", args)
		return text
	}
	for i := range 2 {
		if text := read(""); strings.Contains(text, "unchanged") {
			t.Fatalf("read %d without the hook's session: %q", i+1, text)
		}
	}
	for i, want := range []bool{false, true} {
		if got := strings.Contains(read("claude-c1"), "unchanged"); got != want {
			t.Fatalf("read %d in the hook's session: unchanged %v, want %v", i+1, got, want)
		}
	}
	if text := read("claude-c1-agent-a1"); strings.Contains(text, "unchanged") {
		t.Fatalf("a subagent's first read: %q", text)
	}
	// A refresh the hook names the session of reaches that session.
	call(t, cs, "session_refresh", map[string]any{"path": "a.txt", "session": "claude-c1"})
	if text := read("claude-c1"); strings.Contains(text, "unchanged") {
		t.Fatalf("a read after a refresh in its session: %q", text)
	}
	for _, client := range []string{"codex-mcp-client", "another-client"} {
		other := mcpSessionAs(t, r.Dir, client)
		for i := range 3 {
			if text, _ := call(t, other, "read", map[string]any{"path": "a.txt"}); strings.Contains(text, "unchanged") {
				t.Fatalf("%s's read %d with no session named: %q", client, i+1, text)
			}
		}
	}
	// An operator who names the session owns its barriers.
	named := mcpSessionAs(t, r.Dir, "another-client", "--session", "mine")
	for i, want := range []bool{false, true} {
		if text, _ := call(t, named, "read", map[string]any{"path": "a.txt"}); strings.Contains(text, "unchanged") != want {
			t.Fatalf("a read %d in the session --session named: %q", i+1, text)
		}
	}
}

// TestMCPReadServesThroughAnUnusableStore: with the project's store
// corrupt, the read tool answered nothing ("no project to work in"). It
// now serves the file as a plain read would and says once why nothing is
// cached; the other tools say what is wrong with the store.
func TestMCPReadServesThroughAnUnusableStore(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.txt", "one\ntwo\n")
	r.Commit("init")
	r.Write(".freshctx/freshctx.db", "this is not a database")
	cs := mcpSession(t, r.Dir)
	first, _ := call(t, cs, "read", map[string]any{"path": "a.txt"})
	if !strings.Contains(first, "     1\tone") || !strings.Contains(first, "store cannot be used") {
		t.Fatalf("first read: %q", first)
	}
	second, _ := call(t, cs, "read", map[string]any{"path": "a.txt"})
	if !strings.Contains(second, "     2\ttwo") || strings.Contains(second, "store cannot be used") || strings.Contains(second, "unchanged") {
		t.Fatalf("second read: %q", second)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"query": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, "corrupt") {
		t.Fatalf("recall with a corrupt store: %q", text)
	}
}
