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
	t     testing.TB
	pi    string
	dir   string
	agent string // PI_CODING_AGENT_DIR
	env   []string
	file  string
}

func newPiRig(t testing.TB, wired bool) *piRig {
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

// sessionFile is the newest session file of the rig.
func (p *piRig) sessionFile() string {
	var newest string
	var at time.Time
	filepath.Walk(filepath.Join(p.agent, "sessions"), func(path string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(path, ".jsonl") && info.ModTime().After(at) {
			newest, at = path, info.ModTime()
		}
		return nil
	})
	return newest
}

// sessionEntries are the entries of the newest session file of the rig.
func (p *piRig) sessionEntries() []map[string]any {
	p.t.Helper()
	f, err := os.Open(p.sessionFile())
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

// piTestCommands is an extension the tests add beside freshctx's: commands
// that do what a pi user does in the TUI (/compact, /tree), which print
// mode has no other way to do.
const piTestCommands = `export default function (pi) {
	pi.registerCommand("t-compact", { handler: async (_args, ctx) => {
		await new Promise((resolve, reject) => ctx.compact({ onComplete: resolve, onError: reject }));
	} });
	pi.registerCommand("t-goto", { handler: async (id, ctx) => { await ctx.navigateTree(id.trim(), { summarize: false }); } });
}
`

func (p *piRig) testCommands() {
	p.t.Helper()
	if err := os.WriteFile(filepath.Join(p.dir, ".pi", "extensions", "zz-test-commands.ts"), []byte(piTestCommands), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// session runs pi with args and a script of reads of notes.txt (then
// "done") and returns what the model was sent for those reads.
func (p *piRig) session(reads int, args ...string) []string {
	p.t.Helper()
	var script []agenttest.Step
	for range reads {
		script = append(script, agenttest.Step{Calls: []agenttest.ToolUse{p.read()}})
	}
	return p.steps(script, args...)
}

// steps runs pi with args and a script of reads (then "done") and returns
// what the model was sent for them.
func (p *piRig) steps(script []agenttest.Step, args ...string) []string {
	p.t.Helper()
	reads := len(script)
	api := agenttest.NewAnthropic(p.t, append(script, agenttest.Step{Text: "done"}))
	p.models(api, 200000)
	out := p.run(api, args...)
	results := api.ToolResults()
	if len(results) < reads {
		p.t.Fatalf("pi %v: the model was sent %d tool results, want %d\npi: %s", args, len(results), reads, out)
	}
	return results[len(results)-reads:] // a continued session sends the old ones too
}

// resultEntry is the id of the session entry holding the nth tool result
// (from 0) of the newest session file.
func (p *piRig) resultEntry(n int) string {
	p.t.Helper()
	for _, e := range p.sessionEntries() {
		if m, _ := e["message"].(map[string]any); m != nil && m["role"] == "toolResult" {
			if n == 0 {
				return e["id"].(string)
			}
			n--
		}
	}
	p.t.Fatal("no such tool result in the session")
	return ""
}

func isNote(s string) bool { return strings.Contains(s, "[unchanged: notes.txt") }
func isWhole(s string) bool {
	return strings.Contains(s, "line 1 of notes.txt") && strings.Contains(s, "line 40 of notes.txt")
}

// TestPiFollowsItsSessionTree: the read session is where pi's model is on
// its session tree: after a compaction the first read is whole again; back
// on a branch from before the compaction the model holds the file (the
// note); a fork holds what its branch held; --continue holds what the
// session held; a new session holds nothing.
func TestPiFollowsItsSessionTree(t *testing.T) {
	p := newPiRig(t, true)
	p.testCommands()
	if r := p.session(2, "Work on notes.txt."); !isWhole(r[0]) || !isNote(r[1]) {
		t.Fatalf("first session: %q", r)
	}
	beforeCompaction := p.resultEntry(1)
	if r := p.session(2, "-c", "/t-compact", "Work on notes.txt again."); !isWhole(r[0]) || !isNote(r[1]) {
		t.Fatalf("after a compaction: %q, want the file whole, then the note", r)
	}
	if r := p.session(1, "-c", "/t-goto "+beforeCompaction, "Back before the compaction."); !isNote(r[0]) {
		t.Fatalf("on the branch before the compaction: %q, want the note", r)
	}
	if r := p.session(1, "-c", "Go on."); !isNote(r[0]) {
		t.Fatalf("--continue: %q, want the note", r)
	}
	if r := p.session(1, "--fork", p.sessionFile(), "A fork."); !isNote(r[0]) {
		t.Fatalf("a fork: %q, want the note", r)
	}
	if r := p.session(1, "New work."); !isWhole(r[0]) {
		t.Fatalf("a new session: %q, want the file whole", r)
	}
}

// TestPiFallsBackToItsOwnRead: what freshctx does not keep — an image, a
// sensitive file — reaches the model as pi's own read gives it, every
// time; without freshctx on PATH, pi's read works as it always did.
func TestPiFallsBackToItsOwnRead(t *testing.T) {
	p := newPiRig(t, true)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde" +
		"\x00\x00\x00\x0cIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")
	if err := os.WriteFile(filepath.Join(p.dir, "dot.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.dir, ".env"), []byte("DEBUG=1\nNAME=pi-test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{{"dot.png", "Read image file [image/png]"}, {".env", "NAME=pi-test"}} {
		p.file = c.file
		for i, r := range p.session(2, "Read "+c.file+".") {
			if !strings.Contains(r, c.want) || strings.Contains(r, "[unchanged") {
				t.Fatalf("%s, read %d: the model got %q, want pi's own %q", c.file, i+1, r, c.want)
			}
		}
	}
	p.file = "notes.txt"
	env := p.env
	// freshctx too slow to answer: pi's reads stand, and the next session
	// that can use freshctx does not lean on what it did not record.
	p.env = append(env, "FRESHCTX_PI_TIMEOUT_MS=1")
	for i, r := range p.session(2, "freshctx too slow.") {
		if !isWhole(r) {
			t.Fatalf("freshctx too slow, read %d: %q, want the file whole", i+1, r)
		}
	}
	p.env = env
	p.env = append(env, "PATH=/usr/bin:/bin", "FRESHCTX_BIN=/nonexistent/freshctx")
	for i, r := range p.session(2, "Without freshctx.") {
		if !isWhole(r) {
			t.Fatalf("without freshctx, read %d: %q, want the file whole", i+1, r)
		}
	}
}

// TestPiRoutesTestsThroughRun: a build command in pi's bash runs through
// freshctx run (the model gets the record's footer and the failure, and the
// exit status decides the rest of the line as before); a piped one is left
// alone.
func TestPiRoutesTestsThroughRun(t *testing.T) {
	p := newPiRig(t, true)
	mk := "check:\n\t@echo 'pkg/calc.go:3: want 3, got -1'\n\t@exit 2\n"
	if err := os.WriteFile(filepath.Join(p.dir, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
	bash := func(cmd string) agenttest.ToolUse {
		return agenttest.ToolUse{Name: "bash", Input: map[string]any{"command": cmd}}
	}
	api := agenttest.NewAnthropic(t, []agenttest.Step{
		{Calls: []agenttest.ToolUse{bash("make check || echo the-build-failed")}},
		{Calls: []agenttest.ToolUse{bash("make check 2>&1 | head -1")}},
		{Text: "done"},
	})
	p.models(api, 200000)
	out := p.run(api, "Build it.")
	r := api.ToolResults()
	if len(r) != 2 {
		t.Fatalf("%d tool results: %q\npi: %s", len(r), r, out)
	}
	if !strings.Contains(r[0], "freshctx: record") || !strings.Contains(r[0], "pkg/calc.go:3") || !strings.Contains(r[0], "the-build-failed") {
		t.Fatalf("routed build: the model got %q", r[0])
	}
	if strings.Contains(r[1], "freshctx: record") || !strings.Contains(r[1], "pkg/calc.go:3") {
		t.Fatalf("piped build: the model got %q, want it left alone", r[1])
	}
}

// TestPiStartsTheHookOnlyWhereItMayRoute: the extension starts no freshctx
// for a bash line none of whose words starts a command of
// hooks.run_commands, as mirrored beside the store, and one for each line
// that may be routed, which is.
func TestPiStartsTheHookOnlyWhereItMayRoute(t *testing.T) {
	p := newPiRig(t, true)
	log := countHooks(t, p.env, "Bash")
	mk := "check:\n\t@echo 'pkg/calc.go:3: want 3, got -1'\n\t@exit 2\n"
	if err := os.WriteFile(filepath.Join(p.dir, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := []struct {
		command string
		routed  bool
	}{
		{"make check || true", true}, // the hook writes the mirror, if the MCP server did not
		{"ls -la", false},
		{"git status --short", false},
		{"cd . && make check || true", true},
	}
	var steps []agenttest.Step
	for _, l := range lines {
		steps = append(steps, agenttest.Step{Calls: []agenttest.ToolUse{{Name: "bash", Input: map[string]any{"command": l.command}}}})
	}
	api := agenttest.NewAnthropic(t, append(steps, agenttest.Step{Text: "done"}))
	p.models(api, 200000)
	out := p.run(api, "Build it.")
	r := api.ToolResults()
	if len(r) != len(lines) {
		t.Fatalf("%d tool results: %q\npi: %s", len(r), r, out)
	}
	for i, l := range lines {
		if got := strings.Contains(r[i], "freshctx: record"); got != l.routed {
			t.Errorf("%q: routed %v, want %v: %q", l.command, got, l.routed, r[i])
		}
	}
	if hooks, want := startedHooks(t, log), 2; hooks != want {
		t.Errorf("the hook was started %d times for %d lines, want %d", hooks, len(lines), want)
	}
}

// TestPiNeverLeansOnWhatItDidNotRecord: reads freshctx was too slow to
// record reached the model; once freshctx answers again it forgets what
// they showed. Here the model read the file, then (freshctx too slow) a
// changed version of it, and the file went back: the next read is the
// file, not a note about the first version.
func TestPiNeverLeansOnWhatItDidNotRecord(t *testing.T) {
	p := newPiRig(t, true)
	if r := p.session(1, "Read it."); !isWhole(r[0]) {
		t.Fatalf("first read: %q", r[0])
	}
	path := filepath.Join(p.dir, p.file)
	first, _ := os.ReadFile(path)
	env := p.env
	p.env = append(env, "FRESHCTX_PI_TIMEOUT_MS=1")
	changed := agenttest.Step{Calls: []agenttest.ToolUse{p.read()}, Before: func() {
		os.WriteFile(path, []byte(strings.Replace(string(first), "line 7 of", "line seven of", 1)), 0o644)
	}}
	if r := p.steps([]agenttest.Step{changed}, "-c", "freshctx too slow."); !strings.Contains(r[0], "line seven of") {
		t.Fatalf("the changed file, read by pi alone: %q", r[0])
	}
	os.WriteFile(path, first, 0o644)
	p.env = env
	if r := p.session(2, "-c", "freshctx back."); !isWhole(r[0]) || !isNote(r[1]) {
		t.Fatalf("after reads freshctx did not record: %q, want the file whole (the model last saw another version), then the note", r)
	}
}
