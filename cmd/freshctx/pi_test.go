package main

import (
	"bufio"
	"context"
	"encoding/json"
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

// piRig is a repository wired with `freshctx init pi` and the real pi
// pointed at a scripted Messages API through a provider of its own.
type piRig struct {
	t     *testing.T
	pi    string
	dir   string
	agent string // PI_CODING_AGENT_DIR
	env   []string
	file  string
}

func newPiRig(t *testing.T, wired bool) *piRig {
	pi := agentBinary(t, "FRESHCTX_PI", "pi", "@mariozechner/pi-coding-agent")
	bin := testbin.Build(t)
	r := testgit.New(t)
	r.Write("notes.txt", notesText(40))
	r.Commit("init")
	home := t.TempDir()
	agent := filepath.Join(home, ".pi", "agent")
	if err := os.MkdirAll(agent, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+home, "PI_CODING_AGENT_DIR="+agent, "STANDIN_API_KEY=sk-ant-test", "PI_OFFLINE=1")
	if wired {
		init := exec.Command(bin, "init", "pi")
		init.Dir, init.Env = r.Dir, env
		if out, err := init.CombinedOutput(); err != nil {
			t.Fatalf("init: %v %s", err, out)
		}
	}
	return &piRig{t: t, pi: pi, dir: r.Dir, agent: agent, env: env, file: "notes.txt"}
}

// models points pi's provider "standin" at the stand-in, with a context
// window of window tokens (pi compacts when a turn's input nears it).
func (p *piRig) models(api *agenttest.Anthropic, window int) {
	p.t.Helper()
	cfg := map[string]any{"providers": map[string]any{"standin": map[string]any{
		"baseUrl": api.URL, "api": "anthropic-messages", "apiKey": "STANDIN_API_KEY",
		"models": []map[string]any{{"id": "stand-in", "contextWindow": window, "maxTokens": 1000}},
	}}}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(p.agent, "models.json"), b, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// run runs pi -p with args against the stand-in and returns pi's output.
func (p *piRig) run(api *agenttest.Anthropic, args ...string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.pi, append([]string{"--provider", "standin", "--model", "stand-in", "-p"}, args...)...)
	cmd.Dir, cmd.Env = p.dir, p.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("pi: %v\n%s", err, out)
	}
	return string(out)
}

func (p *piRig) read(args ...any) agenttest.ToolUse {
	in := map[string]any{"path": p.file}
	for i := 0; i+1 < len(args); i += 2 {
		in[args[i].(string)] = args[i+1]
	}
	return agenttest.ToolUse{Name: "read", Input: in}
}

// sessionEntries are the entries of the newest session file of the rig.
func (p *piRig) sessionEntries() []map[string]any {
	p.t.Helper()
	var newest string
	var at time.Time
	filepath.Walk(filepath.Join(p.agent, "sessions"), func(path string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(path, ".jsonl") && info.ModTime().After(at) {
			newest, at = path, info.ModTime()
		}
		return nil
	})
	f, err := os.Open(newest)
	if err != nil {
		p.t.Fatalf("no session file: %v", err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e map[string]any
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// TestPiReadGoesThroughTheReadCache drives the real pi: its read, again on
// an unchanged file, reaches the model as the note; after pi's edit the
// next read is a diff (the file's picture is marked edited: no note);
// a range already held is the range note.
func TestPiReadGoesThroughTheReadCache(t *testing.T) {
	p := newPiRig(t, true)
	edit := agenttest.ToolUse{Name: "edit", Input: map[string]any{"path": p.file,
		"edits": []map[string]any{{"oldText": "line 7 of notes.txt", "newText": "line seven of notes.txt"}}}}
	api := agenttest.NewAnthropic(t, []agenttest.Step{
		{Calls: []agenttest.ToolUse{p.read()}},
		{Calls: []agenttest.ToolUse{p.read()}},
		{Calls: []agenttest.ToolUse{edit}},
		{Calls: []agenttest.ToolUse{p.read()}},
		{Calls: []agenttest.ToolUse{p.read("offset", 3, "limit", 5)}},
		{Text: "done"},
	})
	p.models(api, 200000)
	out := p.run(api, "Work on notes.txt.")
	results := api.ToolResults()
	if len(results) != 5 {
		t.Fatalf("the model was sent %d tool results, want 5:\n%q\npi: %s", len(results), results, out)
	}
	if !strings.Contains(results[0], "line 40 of notes.txt") || strings.Contains(results[0], "     1\t") {
		t.Fatalf("first read (pi's own form, no line numbers): %q", results[0])
	}
	if !strings.Contains(results[1], "[unchanged: notes.txt") || strings.Contains(results[1], "line 40 of notes.txt") {
		t.Fatalf("second read: %q", results[1])
	}
	if b, _ := os.ReadFile(filepath.Join(p.dir, p.file)); !strings.Contains(string(b), "line seven of notes.txt") {
		t.Fatalf("the edit did not apply: %q", results[2])
	}
	if !strings.Contains(results[3], "+line seven of notes.txt") || strings.Contains(results[3], "line 40 of notes.txt") {
		t.Fatalf("read after the edit: %q", results[3])
	}
	if !strings.Contains(results[4], "[unchanged: notes.txt lines 3-7") {
		t.Fatalf("range read: %q", results[4])
	}
	t.Logf("the model got: %d bytes, then %q, then %d bytes of diff, then %q", len(results[0]), results[1], len(results[3]), results[4])
}
