package integrate

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/config"
)

// codexPrefilter runs codexBashCommand as Codex does (bash -c), in a
// folder of its own, with a freshctx on PATH that keeps what it was given.
type codexPrefilter struct {
	t    *testing.T
	bash string
	bin  string // the folder of the stand-in freshctx
	out  string // where it writes its arguments and its stdin
}

func newCodexPrefilter(t *testing.T) *codexPrefilter {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	p := &codexPrefilter{t: t, bash: bash, bin: t.TempDir()}
	p.out = filepath.Join(t.TempDir(), "called")
	stand := "#!/bin/sh\nprintf '%s' \"$*\" > '" + p.out + ".args'\ncat > '" + p.out + ".stdin'\n"
	if err := os.WriteFile(filepath.Join(p.bin, "freshctx"), []byte(stand), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// run gives the prefilter input, with env's variables set, and reports
// whether it started freshctx: its answer otherwise must be nothing, and
// the input freshctx got must be the input whole.
func (p *codexPrefilter) run(input []byte, env ...string) (started bool) {
	p.t.Helper()
	os.Remove(p.out + ".args")
	os.Remove(p.out + ".stdin")
	cmd := exec.Command(p.bash, "-c", codexBashCommand)
	cmd.Stdin = bytes.NewReader(input)
	cmd.Env = append([]string{"PATH=" + p.bin + string(os.PathListSeparator) + os.Getenv("PATH")}, env...)
	out, err := cmd.CombinedOutput()
	args, aerr := os.ReadFile(p.out + ".args")
	if aerr != nil {
		if err != nil || len(out) > 0 {
			p.t.Fatalf("the prefilter answered itself with %q (%v), want nothing", out, err)
		}
		return false
	}
	if string(args) != "hook codex" {
		p.t.Fatalf("freshctx was started with %q", args)
	}
	got, _ := os.ReadFile(p.out + ".stdin")
	if !bytes.Equal(got, input) && !bytes.Equal(got, append(input, '\n')) {
		p.t.Fatalf("freshctx was given %q, want %q", got, input)
	}
	return true
}

// codexInput is a PreToolUse of Bash as Codex 0.169.0 writes it: its
// fields in its order, and the characters JSON may leave as they are left.
func codexInput(t *testing.T, cwd, command string) []byte {
	t.Helper()
	in := struct {
		SessionID      string            `json:"session_id"`
		TurnID         string            `json:"turn_id"`
		TranscriptPath string            `json:"transcript_path"`
		Cwd            string            `json:"cwd"`
		Event          string            `json:"hook_event_name"`
		Model          string            `json:"model"`
		PermissionMode string            `json:"permission_mode"`
		ToolName       string            `json:"tool_name"`
		ToolInput      map[string]string `json:"tool_input"`
		ToolUseID      string            `json:"tool_use_id"`
	}{"01a248b9-1920-7792-baba-f4fbcdbc8d93", "01a248b9-19da-7ad1-974a-d5070851d063",
		"/home/u/.codex/sessions/2026/12/06/rollout-go-make.jsonl", cwd, "PreToolUse", "gpt-5.1-codex",
		"bypassPermissions", "Bash", map[string]string{"command": command}, "call_1048578_0"}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// projectWithMirror is a folder holding .git and a store's run commands
// mirrored as the store writes them.
func projectWithMirror(t *testing.T, prefixes []string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeMirror(t, dir, config.MirrorHeader+strings.Join(prefixes, ", "))
	return dir
}

func writeMirror(t *testing.T, root, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, ".freshctx"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".freshctx", "freshctx.db-run-commands"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestCodexPrefilterCoversEveryRoutedLine runs the prefilter on random
// lines and run commands (pi's prefilter's words, separators that JSON
// escapes among them): every line routedLine would route starts freshctx,
// given the input whole, and a line the prefilter answers itself gets no
// answer at all.
func TestCodexPrefilterCoversEveryRoutedLine(t *testing.T) {
	p := newCodexPrefilter(t)
	words := []string{"go", "gofmt", "make", "python", "python3", "npm", "ls", "FOO=1", "-m", "pytest", "test", "./x", "_go", "xgo"}
	seps := []string{" && ", " || ", "; ", " | ", "\n", " 2>&1 && ", " & ", "\t", " ! ", "\r\n", " \\\n "}
	r := rand.New(rand.NewPCG(46, 2))
	n, routed, answered := 300, 0, 0
	if testing.Short() {
		n = 60
	}
	for range n {
		prefixes, line := randomRouting(r, words, seps)
		dir := projectWithMirror(t, prefixes)
		started := p.run(codexInput(t, dir, line))
		_, routes := routedLine(line, prefixes, "freshctx")
		if routes && !started {
			t.Fatalf("%q is routed by %q, yet the prefilter answered it", line, prefixes)
		}
		if routes {
			routed++
		}
		if !started {
			answered++
		}
	}
	if routed == 0 || answered == 0 {
		t.Fatalf("of %d lines %d were routed and %d answered by the prefilter: the test tells nothing", n, routed, answered)
	}
	t.Logf("%d lines: %d routed, %d answered without freshctx", n, routed, answered)
}

// TestCodexPrefilterStartsFreshctxWhereItCannotSee: the prefilter answers
// a line itself only where it sees all the hook's own answer rests on.
func TestCodexPrefilterStartsFreshctxWhereItCannotSee(t *testing.T) {
	p := newCodexPrefilter(t)
	project := projectWithMirror(t, testRunCommands)
	sub := filepath.Join(project, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	noMirror := t.TempDir()
	os.Mkdir(filepath.Join(noMirror, ".git"), 0o755)
	foreign := t.TempDir()
	os.Mkdir(filepath.Join(foreign, ".git"), 0o755)
	writeMirror(t, foreign, "go test, ls\n")
	notAProject := t.TempDir()
	storeNoGit := t.TempDir()
	writeMirror(t, storeNoGit, config.MirrorHeader+"go test")
	os.WriteFile(filepath.Join(storeNoGit, ".freshctx", "freshctx.db"), nil, 0o600)
	long := codexInput(t, project, "ls "+strings.Repeat("x", 5000))
	for _, c := range []struct {
		name    string
		input   []byte
		env     []string
		started bool
	}{
		{"a line no run command starts", codexInput(t, project, "ls -la"), nil, false},
		{"a routed line", codexInput(t, project, "go test ./..."), nil, true},
		{"from a folder below the root", codexInput(t, sub, "git status --short"), nil, false},
		{"a word a run command starts, not routed", codexInput(t, project, "cat go.mod"), nil, true},
		{"a command on a line of its own", codexInput(t, project, "cd x\nmake"), nil, true},
		{"no mirror: the store decides", codexInput(t, noMirror, "ls -la"), nil, true},
		{"a file of the mirror's name freshctx did not write", codexInput(t, foreign, "ls -la"), nil, true},
		{"FRESHCTX_STORE set", codexInput(t, project, "ls -la"), []string{"FRESHCTX_STORE=/elsewhere/x.db"}, true},
		{"FRESHCTX_ROOT set", codexInput(t, project, "ls -la"), []string{"FRESHCTX_ROOT=/elsewhere"}, true},
		{"a cwd relative to nothing", codexInput(t, "rel/dir", "ls -la"), nil, true},
		{"a cwd with an escape", codexInput(t, project+`\"x`, "ls -la"), nil, true},
		{"a cwd that is not there", codexInput(t, project+"/gone", "ls -la"), nil, true},
		{"another event", []byte(`{"session_id":"s","cwd":"` + project + `","hook_event_name":"SessionStart","source":"startup"}`), nil, true},
		{"another shape", []byte(`{"cwd":"` + project + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"cmd":"ls"}}`), nil, true},
		{"an input longer than the prefilter reads", long, nil, true},
		{"no input", nil, nil, true},
		{"outside a project, with no store", codexInput(t, notAProject, "go test ./..."), nil, false},
		{"outside git, with a store", codexInput(t, storeNoGit, "ls -la"), nil, false},
		{"outside git, with a store, routed", codexInput(t, storeNoGit, "go test"), nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p.t = t
			if got := p.run(c.input, c.env...); got != c.started {
				t.Fatalf("freshctx started: %v, want %v", got, c.started)
			}
		})
	}
}

// TestCodexBashGroupRunsThePrefilter: init gives Codex's Bash group the
// prefilter in place of the hook an older init wrote there, leaves the
// other events and the user's own hook as they are, changes nothing when
// run again, and --remove takes the prefilter out with the rest.
func TestCodexBashGroupRunsThePrefilter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hooks.json")
	plain := `{"type": "command", "command": "freshctx hook codex"}`
	write(t, path, `{"hooks": {
  "SessionStart": [{"hooks": [`+plain+`]}],
  "PreCompact": [{"hooks": [`+plain+`]}],
  "PostCompact": [{"hooks": [`+plain+`]}],
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]},
    {"matcher": "Bash", "hooks": [`+plain+`]},
    {"matcher": "`+MCPSessionMatcher+`", "hooks": [`+plain+`]}]}}`)
	changes, err := Codex(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(changes); err != nil {
		t.Fatal(err)
	}
	commands := func() map[string][]string {
		out := map[string][]string{}
		for key, hs := range hookHandlers(t, path) {
			for _, h := range hs {
				cmd, _ := h["command"].(string)
				out[key] = append(out[key], cmd)
			}
		}
		return out
	}
	got := commands()
	if bash := got["PreToolUse Bash"]; len(bash) != 2 || bash[0] != "guard.sh" || bash[1] != codexBashCommand {
		t.Fatalf("the Bash group runs %q, want guard.sh and the prefilter", bash)
	}
	for _, key := range []string{"SessionStart", "PreCompact", "PostCompact", "PreToolUse " + MCPSessionMatcher} {
		if c := got[key]; len(c) != 1 || c[0] != "freshctx hook codex" {
			t.Errorf("%s runs %q", key, c)
		}
	}
	codexAgainChangesNothing(t, dir)
	removal, err := codexRemove(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(removal); err != nil {
		t.Fatal(err)
	}
	if got := commands(); len(got) != 1 || len(got["PreToolUse Bash"]) != 1 || got["PreToolUse Bash"][0] != "guard.sh" {
		t.Fatalf("after --remove: %q, want guard.sh alone", got)
	}
}
