package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/agenttest"
	"github.com/freshctx/freshctx/internal/tokens"
)

// piCalls turns the savings session's calls (Claude Code's tools) into
// pi's: read {path}, edit {path, edits}, bash {command}.
func piCalls(calls []agenttest.ToolUse) []agenttest.ToolUse {
	out := make([]agenttest.ToolUse, len(calls))
	for i, c := range calls {
		switch c.Name {
		case "Read":
			out[i] = agenttest.ToolUse{Name: "read", Input: map[string]any{"path": c.Input["file_path"]}}
		case "Edit":
			out[i] = agenttest.ToolUse{Name: "edit", Input: map[string]any{"path": c.Input["file_path"],
				"edits": []map[string]any{{"oldText": c.Input["old_string"], "newText": c.Input["new_string"]}}}}
		case "Bash":
			out[i] = agenttest.ToolUse{Name: "bash", Input: map[string]any{"command": c.Input["command"]}}
		}
	}
	return out
}

// runPiSavingsSession drives the real pi through the savings session in a
// fresh repository, with or without freshctx.
func runPiSavingsSession(b *testing.B, wired bool) ([]agenttest.ToolResult, []string) {
	p := newPiRig(b, wired)
	r := func(name, text string) {
		if err := os.WriteFile(filepath.Join(p.dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	writeCalcModule(b, p.dir)
	r("a.go", sourceText("A", 12))
	r("b.go", sourceText("B", 15))
	r("c.go", sourceText("C", 10))
	r("notes.md", notesText(60))
	claude, compactAfter := savingsSession(p.dir, testing.Short())
	calls := piCalls(claude)
	// pi compacts when a prompt ends over its threshold, not within one:
	// the session is two prompts, the first ending over it.
	var script []agenttest.Step
	var files []string
	for i, call := range calls {
		if i == compactAfter {
			script = append(script, agenttest.Step{Text: "first part done", InputTokens: 39_000}) // window 40,000 less 16,384
		}
		script = append(script, agenttest.Step{Calls: []agenttest.ToolUse{call}})
		file := ""
		if call.Name == "read" {
			file = filepath.Base(call.Input["path"].(string))
		}
		files = append(files, file)
	}
	api := agenttest.NewAnthropic(b, append(script, agenttest.Step{Text: "done"}))
	p.models(api, 40_000)
	p.run(api, "Fix the failing test.", "Go on.")
	got := api.Results()
	if len(got) != len(calls) {
		b.Fatalf("wired=%v: the model was sent %d tool results for %d calls", wired, len(got), len(calls))
	}
	if compacted := slices.ContainsFunc(p.sessionEntries(), func(e map[string]any) bool { return e["type"] == "compaction" }); !compacted {
		b.Fatalf("wired=%v: pi did not compact", wired)
	}
	return got, files
}

// BenchmarkPiSavings runs the savings session (42 tool calls with an
// automatic compaction; 14 with -short) through the real pi without
// freshctx and with `freshctx init pi`, and reports the o200k tokens of
// the tool results the model was sent in each and wrong answers, judged as
// BenchmarkClaudeCodeSavings judges them.
func BenchmarkPiSavings(b *testing.B) {
	var plainTok, freshTok, wrong, notes, diffs, calls int
	for b.Loop() {
		plain, files := runPiSavingsSession(b, false)
		fresh, _ := runPiSavingsSession(b, true)
		plainTok, freshTok, calls = 0, 0, len(plain)
		for i := range plain {
			plainTok += tokens.Count(plain[i].Text)
			freshTok += tokens.Count(fresh[i].Text)
		}
		wrong, notes, diffs = wrongAnswers(b, plain, fresh, files)
	}
	b.ReportMetric(float64(calls), "tool_calls")
	b.ReportMetric(float64(plainTok), "plain_result_tokens")
	b.ReportMetric(float64(freshTok), "freshctx_result_tokens")
	b.ReportMetric(1-float64(freshTok)/float64(plainTok), "x_saved")
	b.ReportMetric(float64(notes), "unchanged_notes")
	b.ReportMetric(float64(diffs), "diffs")
	b.ReportMetric(float64(wrong), "wrong_answers")
	if wrong > 0 {
		b.Errorf("%d wrong answers", wrong)
	}
}

// readTimes runs pi in JSON mode through a script of reads and returns how
// long each read took, from its tool_execution_start event to its end, as
// the events reached this process.
func (p *piRig) readTimes(script []agenttest.Step) []time.Duration {
	p.t.Helper()
	api := agenttest.NewAnthropic(p.t, script)
	p.models(api, 200000)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.pi, "--provider", "standin", "--model", "stand-in", "--mode", "json", "-p", "Read.")
	cmd.Dir, cmd.Env = p.dir, p.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	started := map[string]time.Time{}
	var times []time.Duration
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		now := time.Now()
		var ev struct {
			Type, ToolCallID, ToolName string
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.ToolName != "read" {
			continue
		}
		switch ev.Type {
		case "tool_execution_start":
			started[ev.ToolCallID] = now
		case "tool_execution_end":
			times = append(times, now.Sub(started[ev.ToolCallID]))
		}
	}
	if err := cmd.Wait(); err != nil {
		p.t.Fatalf("pi: %v", err)
	}
	return times
}

// BenchmarkPiReadCost is the time a read takes in pi with freshctx's
// extension (pi's read, then one call to the session's freshctx mcp) and,
// measured in turn in the same run, with pi's read alone: 30 reads of
// three small files, one pi session each, the first read of the session
// left out (it waits for freshctx to start). It reports the median of
// each, the median extra milliseconds per read and their ratio.
func BenchmarkPiReadCost(b *testing.B) {
	rigs := map[bool]*piRig{true: newPiRig(b, true), false: newPiRig(b, false)}
	for _, p := range rigs {
		for i, name := range []string{"a.go", "b.go", "c.go"} {
			if err := os.WriteFile(filepath.Join(p.dir, name), []byte(sourceText(string(rune('A'+i)), 12)), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	var script []agenttest.Step
	for i := range 31 {
		script = append(script, agenttest.Step{Calls: []agenttest.ToolUse{{Name: "read",
			Input: map[string]any{"path": fmt.Sprintf("%c.go", 'a'+i%3)}}}})
	}
	script = append(script, agenttest.Step{Text: "done"})
	times := map[bool][]time.Duration{}
	for b.Loop() {
		for _, wired := range []bool{false, true} {
			t := rigs[wired].readTimes(script)
			if len(t) != 31 {
				b.Fatalf("wired=%v: %d reads timed", wired, len(t))
			}
			times[wired] = append(times[wired], t[1:]...)
		}
	}
	plain, fresh := median(times[false]), median(times[true])
	b.ReportMetric(ms(plain), "pi_read_ms")
	b.ReportMetric(ms(fresh), "freshctx_read_ms")
	b.ReportMetric(ms(fresh-plain), "extra_ms")
	b.ReportMetric(float64(fresh)/float64(plain), "x_pi_read")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
