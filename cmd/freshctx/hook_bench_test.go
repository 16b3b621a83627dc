package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testbench"
	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testgit"
)

// BenchmarkHookSessionStart times Claude Code's SessionStart hook, as a
// process, on a fresh store of a 100,000-file repository (2,000 with
// -short): the first session of a project, which used to bootstrap the
// registry before returning. It reports the median against the 200 ms
// budget; the registry sync it starts is waited for outside the timing.
func BenchmarkHookSessionStart(b *testing.B) {
	n := 100_000
	if testing.Short() {
		n = 2_000
	}
	bin := testbin.Build(b)
	r := testgit.New(b)
	for i := range n {
		p := r.Path(fmt.Sprintf("src/m%03d/f%05d.go", i%500, i))
		if i < 500 {
			os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "package m\n\nvar F%d = %d\n", i, i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	r.Commit("init")
	stores := b.TempDir()
	var took []time.Duration
	i := 0
	for b.Loop() {
		i++
		store := filepath.Join(stores, fmt.Sprintf("s%d", i), "freshctx.db")
		cmd := exec.Command(bin, "--store", store, "hook", "claude-code")
		cmd.Dir = r.Dir
		cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"hook_event_name":"SessionStart","session_id":"s%d","source":"startup","cwd":%q}`, i, r.Dir))
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("hook: %v %s", err, out)
		}
		took = append(took, time.Since(start))
		b.StopTimer()
		waitForSync(b, store)
		b.StartTimer()
	}
	med := testbench.Median(took)
	testbench.MS(b, med, "first_session_ms")
	b.ReportMetric(float64(med)/float64(200*time.Millisecond), "x_budget")
}

// waitForSync waits for the background registry sync of store to end.
func waitForSync(b *testing.B, store string) {
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		if exec.Command("pgrep", "-f", "store "+store+" registry sync").Run() != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.Fatal("the background registry sync did not end")
}

// BenchmarkHookRead times Claude Code's PostToolUse hook on a Read, as a
// process, the way Claude Code calls it after every Read: the first read of
// a 48 KB file in a conversation (recorded, Read's content stands) and a
// read of it again unchanged (answered with a note). Each iteration starts
// a new conversation, so both reads are timed every time. It also times,
// in turn with those, the unchanged read of a conversation with a
// transcript (1 MB, 7 KB more before each read): the hook reads what the
// transcript gained for a /rewind first.
func BenchmarkHookRead(b *testing.B) {
	bin := testbin.Build(b)
	r := testgit.New(b)
	content := bigSource()
	r.Write("big.go", content)
	r.Commit("init")
	path := r.Path("big.go")
	// As Claude Code delivers a whole file: all of it, its lines counted
	// as the text split at "\n" (the empty one after the last newline too).
	resp, err := json.Marshal(map[string]any{"type": "text", "file": map[string]any{
		"filePath": path, "content": content, "numLines": 551, "startLine": 1, "totalLines": 551}})
	if err != nil {
		b.Fatal(err)
	}
	transcript := filepath.Join(b.TempDir(), "t.jsonl")
	entry := `{"type":"user","message":{"content":[{"type":"tool_result","content":"` + strings.Repeat(`a line of a file\n`, 400) + `"}]},"uuid":"u"}` + "\n"
	if err := os.WriteFile(transcript, []byte(strings.Repeat(entry, 150)), 0o644); err != nil {
		b.Fatal(err)
	}
	grow := func() {
		f, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		f.WriteString(entry)
		f.Close()
	}
	hookWith := func(session, transcriptPath string) (time.Duration, string) {
		in, _ := json.Marshal(map[string]any{"hook_event_name": "PostToolUse", "session_id": session, "cwd": r.Dir,
			"tool_name": "Read", "tool_input": map[string]any{"file_path": path}, "tool_response": json.RawMessage(resp),
			"transcript_path": transcriptPath})
		cmd := exec.Command(bin, "hook", "claude-code")
		cmd.Dir = r.Dir
		cmd.Stdin = strings.NewReader(string(in))
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took := time.Since(start)
		if err != nil {
			b.Fatalf("hook: %v %s", err, out)
		}
		return took, string(out)
	}
	hook := func(session string) (time.Duration, string) { return hookWith(session, "") }
	hook("warm-up")                         // the store
	hookWith("with-transcript", transcript) // its first look reads the transcript whole
	hookWith("with-transcript", transcript)
	var first, again, withTranscript []time.Duration
	i := 0
	for b.Loop() {
		i++
		session := fmt.Sprintf("conversation-%d", i)
		took, out := hook(session)
		if strings.Contains(out, "unchanged") {
			b.Fatalf("a first read answered unchanged: %s", out)
		}
		first = append(first, took)
		took, out = hook(session)
		if !strings.Contains(out, `[unchanged: big.go`) {
			b.Fatalf("a read of the same lines again was not answered unchanged: %s", out)
		}
		again = append(again, took)
		grow()
		took, out = hookWith("with-transcript", transcript)
		if !strings.Contains(out, `[unchanged: big.go`) {
			b.Fatalf("a read with a transcript that gained no reset was not answered unchanged: %s", out)
		}
		withTranscript = append(withTranscript, took)
	}
	testbench.MedianMS(b, first, "first_ms")
	testbench.MedianMS(b, again, "unchanged_ms")
	testbench.MedianMS(b, withTranscript, "unchanged_transcript_ms")
	testbench.Ratio(b, withTranscript, again, "x_transcript")
}

// BenchmarkHookBash times Claude Code's PreToolUse hook on Bash, as a
// process, in turn with a static Go hello-world: a command it does not
// route (ls -la: most of what an agent runs, answered without opening the
// store) and one it routes through freshctx run (go test ./...). The goal
// for the first is at most 1.5x the hello-world. In the same turn it times
// Codex's Bash hook as init installs it, bash running the prefilter that
// answers ls -la itself and hands go test to freshctx (codex_*).
func BenchmarkHookBash(b *testing.B) {
	bin, hello := testbin.Build(b), testbin.Hello(b)
	r := testgit.New(b)
	r.Write("a.go", "package a\n")
	r.Commit("init")
	hook := func(line string) time.Duration {
		in, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "s", "cwd": r.Dir,
			"tool_name": "Bash", "tool_input": map[string]any{"command": line}, "permission_mode": "bypassPermissions"})
		cmd := exec.Command(bin, "hook", "claude-code")
		cmd.Dir, cmd.Stdin = r.Dir, strings.NewReader(string(in))
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took := time.Since(start)
		if err != nil {
			b.Fatalf("hook: %v %s", err, out)
		}
		if routed := strings.Contains(string(out), "updatedInput"); routed != strings.HasPrefix(line, "go test") {
			b.Fatalf("%q: routed %v\n%s", line, routed, out)
		}
		return took
	}
	hook("go test ./...") // the store, and the run commands beside it
	codex := codexBashHook(b, bin, r.Dir)
	var base, unrouted, routed, codexUnrouted, codexRouted []time.Duration
	for b.Loop() {
		start := time.Now()
		if out, err := exec.Command(hello).CombinedOutput(); err != nil {
			b.Fatalf("hello: %v %s", err, out)
		}
		base = append(base, time.Since(start))
		unrouted = append(unrouted, hook("ls -la"))
		routed = append(routed, hook("go test ./..."))
		codexUnrouted = append(codexUnrouted, codex("ls -la"))
		codexRouted = append(codexRouted, codex("go test ./..."))
	}
	testbench.MedianMS(b, base, "hello_ms")
	testbench.MedianMS(b, unrouted, "unrouted_ms")
	testbench.MedianMS(b, routed, "routed_ms")
	testbench.Ratio(b, unrouted, base, "unrouted_x_hello")
	testbench.Ratio(b, routed, base, "routed_x_hello")
	testbench.MedianMS(b, codexUnrouted, "codex_unrouted_ms")
	testbench.MedianMS(b, codexRouted, "codex_routed_ms")
	testbench.Ratio(b, codexUnrouted, base, "codex_unrouted_x_hello")
	testbench.Ratio(b, codexRouted, routed, "codex_routed_x_hook")
}

// codexBashHook is Codex's PreToolUse hook for Bash as `freshctx init
// codex --project` installs it in dir, run as Codex runs it (bash -c, bin
// first on PATH) on a line given as Codex gives it: the time it took, its
// answer checked (routed for go test, nothing for the rest).
func codexBashHook(b *testing.B, bin, dir string) func(line string) time.Duration {
	b.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("bash is not installed")
	}
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "CODEX_HOME=")
	command, err := testbin.CodexBashHook(bin, dir, env)
	if err != nil {
		b.Fatal(err)
	}
	return func(line string) time.Duration {
		in, _ := json.Marshal(map[string]any{"session_id": "s", "turn_id": "t", "cwd": dir, "hook_event_name": "PreToolUse",
			"model": "gpt-5.1-codex", "permission_mode": "bypassPermissions", "tool_name": "Bash",
			"tool_input": map[string]any{"command": line}, "tool_use_id": "call_1"})
		cmd := exec.Command(bash, "-c", command)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(string(in))
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took := time.Since(start)
		if err != nil {
			b.Fatalf("codex hook: %v %s", err, out)
		}
		if routed := strings.Contains(string(out), "updatedInput"); routed != strings.HasPrefix(line, "go test") || !routed && len(out) > 0 {
			b.Fatalf("codex hook, %q: routed %v\n%s", line, routed, out)
		}
		return took
	}
}

// BenchmarkReadTinyAgain times `freshctx read` of a file of one line read
// before, as a process, in turn with the same of a 550-line file: the
// large one is answered with a note, the tiny one whole, since it costs
// fewer tokens than the note. Deciding that used to load the tokenizer's
// vocabulary (about 25 ms) to count the note in every such read; the goal
// is a tiny file's read no dearer than a large one's (x_large about 1).
// The first read again of a version counts its text, once, and keeps the
// count (`read` leaves a first read's count for later): it is made before
// the timing. A small file of five lines is between the two: its note's
// bytes do not bound it against the text, so the first read again counts
// the note and keeps the count with its answer, and the reads after take
// it (small_x_large about 1; it was over 2 while each counted the note).
func BenchmarkReadTinyAgain(b *testing.B) {
	bin := testbin.Build(b)
	r := testgit.New(b)
	r.Write("big.go", bigSource())
	r.Write("tiny.go", "package tiny\n")
	r.Write("small.go", "package small\n\nimport \"fmt\"\n\nfunc F() { fmt.Println(1) }\n")
	r.Commit("init")
	read := func(file, want string) time.Duration {
		cmd := exec.Command(bin, "read", file)
		cmd.Dir = r.Dir
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took := time.Since(start)
		if err != nil || !strings.Contains(string(out), want) {
			b.Fatalf("read %s: %v\n%s", file, err, out)
		}
		return took
	}
	read("big.go", "first read")
	read("tiny.go", "first read")
	read("tiny.go", "costs no more than a note") // counts the version's tokens, once
	read("small.go", "first read")
	read("small.go", "[unchanged: small.go") // counts the version's and the note's tokens, once
	var tiny, small, large []time.Duration
	for b.Loop() {
		tiny = append(tiny, read("tiny.go", "costs no more than a note"))
		small = append(small, read("small.go", "[unchanged: small.go"))
		large = append(large, read("big.go", "[unchanged: big.go"))
	}
	testbench.MedianMS(b, tiny, "tiny_ms")
	testbench.MedianMS(b, small, "small_ms")
	testbench.MedianMS(b, large, "large_ms")
	testbench.Ratio(b, tiny, large, "x_large")
	testbench.Ratio(b, small, large, "small_x_large")
}

// BenchmarkHookReadSmallAgain times Claude Code's PostToolUse hook on a
// Read of a 9-line source file the conversation read before, as a
// process, in turn with the same of the 550-line file: both are answered
// with a note. A small file's note is longer in bytes than the file has
// lines, so its choice once counted the file's numbered text in every
// hook process (loading the tokenizer's vocabulary, about 25 ms); the
// text is now bounded from below by its runs of letters and digits, and
// the note by the count kept of it as Claude Code sends it, so only the
// conversation's first read of it again counts (made before the timing).
// The goal is a small file's read no dearer than a large one's
// (small_x_large about 1). A tiny file, two lines whose text costs less
// than the note, is answered with itself (the hook leaves Claude Code's
// output as it is): its count is kept with the read that served it, once
// counted, and decides against the note's fewest tokens (tiny_x_large).
func BenchmarkHookReadSmallAgain(b *testing.B) {
	bin := testbin.Build(b)
	r := testgit.New(b)
	small := "package pkg000\n\n// F3 returns what version 0 of this file computes.\nfunc F3(x int) int {\n\tif x < 0 {\n\t\treturn -x * 1\n\t}\n\treturn x + 3\n}\n"
	tiny := "[core]\n\tbare = false\n"
	r.Write("small.go", small)
	r.Write("tiny.cfg", tiny)
	r.Write("big.go", bigSource())
	r.Commit("init")
	hook := func(name, content, want string) time.Duration {
		cmd := exec.Command(bin, "hook", "claude-code")
		cmd.Dir = r.Dir
		cmd.Stdin = strings.NewReader(claudeReadInput(b, "again", r.Path(name), content))
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took := time.Since(start)
		if err != nil || !strings.Contains(string(out), want) {
			b.Fatalf("hook on a read of %s: %v %q, want %q", name, err, out, want)
		}
		return took
	}
	hook("small.go", small, "")
	hook("small.go", small, "[unchanged: small.go") // counts the note as sent, once
	hook("big.go", bigSource(), "")
	hook("tiny.cfg", tiny, "")
	hook("tiny.cfg", tiny, "") // counts the text, once, and keeps the count
	var smallAgain, tinyAgain, bigAgain []time.Duration
	for b.Loop() {
		smallAgain = append(smallAgain, hook("small.go", small, "[unchanged: small.go"))
		tinyAgain = append(tinyAgain, hook("tiny.cfg", tiny, ""))
		bigAgain = append(bigAgain, hook("big.go", bigSource(), "[unchanged: big.go"))
	}
	testbench.MedianMS(b, smallAgain, "small_ms")
	testbench.MedianMS(b, tinyAgain, "tiny_ms")
	testbench.MedianMS(b, bigAgain, "large_ms")
	testbench.Ratio(b, smallAgain, bigAgain, "small_x_large")
	testbench.Ratio(b, tinyAgain, bigAgain, "tiny_x_large")
}

// claudeReadInput is what Claude Code sends the PostToolUse hook after a
// Read of all of path in session: its lines counted as the text split at
// "\n" (the empty one after the last newline too).
func claudeReadInput(b *testing.B, session, path, content string) string {
	lines := strings.Count(content, "\n") + 1
	in, err := json.Marshal(map[string]any{"hook_event_name": "PostToolUse", "session_id": session, "cwd": filepath.Dir(path),
		"tool_name": "Read", "tool_input": map[string]any{"file_path": path}, "tool_response": map[string]any{"type": "text",
			"file": map[string]any{"filePath": path, "content": content, "numLines": lines, "startLine": 1, "totalLines": lines}}})
	if err != nil {
		b.Fatal(err)
	}
	return string(in)
}

// bigSource is a source file of 550 lines, 48 KB.
func bigSource() string {
	var content strings.Builder
	for i := range 550 {
		fmt.Fprintf(&content, "// line %d: some words of a longer source file, func F%d(x int) int { return x * %d }\n", i, i, i)
	}
	return content.String()
}
