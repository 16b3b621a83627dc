package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/agenttest"
	"github.com/freshctx/freshctx/internal/testdiff"
	"github.com/freshctx/freshctx/internal/tokens"
)

// sourceText is a Go file of package calc with n small functions, named
// after prefix so that every file's lines are its own.
func sourceText(prefix string, n int) string {
	var b strings.Builder
	b.WriteString("package calc\n\nimport \"strings\"\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "\n// %s%d joins the words of s with %q after trimming the spaces\n// around each; an empty s gives an empty string.\n", prefix, i, prefix)
		fmt.Fprintf(&b, "func %s%d(s string) string {\n\tparts := strings.Fields(s)\n\tfor i, p := range parts {\n\t\tparts[i] = strings.TrimSpace(p)\n\t}\n\treturn strings.Join(parts, %q)\n}\n", prefix, i, prefix)
	}
	return b.String()
}

// savingsSession is one scripted session of 42 tool calls, the way an
// agent fixes a failing test: it reads the package, runs the tests, fixes
// the bug, re-reads what it is working on, edits, and goes on after an
// automatic compaction. short keeps the first 14 calls and the compaction.
func savingsSession(dir string, short bool) (calls []agenttest.ToolUse, compactAfter int) {
	path := func(name string) string { return filepath.Join(dir, name) }
	read := func(names ...string) {
		for _, n := range names {
			calls = append(calls, agenttest.ToolUse{Name: "Read", Input: map[string]any{"file_path": path(n)}})
		}
	}
	edit := func(name, old, new string) {
		calls = append(calls, agenttest.ToolUse{Name: "Edit", Input: map[string]any{"file_path": path(name), "old_string": old, "new_string": new}})
	}
	bash := func(line string) {
		calls = append(calls, agenttest.ToolUse{Name: "Bash", Input: map[string]any{"command": line, "description": "check the package"}})
	}
	read("a.go", "b.go", "c.go", "notes.md", "calc.go", "calc_test.go")
	bash("go test ./...")
	read("calc.go")
	edit("calc.go", "return a - b", "return a + b")
	read("calc.go")
	bash("go test ./...")
	read("a.go", "b.go", "c.go")
	if !short {
		edit("a.go", "// A3 joins", "// A3 glues")
		read("a.go")
		edit("b.go", "// B7 joins", "// B7 glues")
		read("b.go", "notes.md", "a.go", "b.go", "c.go")
		bash("go vet ./...")
		edit("c.go", "// C2 joins", "// C2 glues")
		read("c.go")
	}
	edit("notes.md", "line 3 of notes.txt", "line three of notes.txt")
	compactAfter = len(calls) // the answer to this call reports a full context
	read("a.go", "b.go", "c.go", "notes.md", "calc.go")
	if !short {
		read("a.go", "b.go", "c.go", "notes.md", "calc.go")
		bash("go test ./...")
		edit("a.go", "// A5 joins", "// A5 glues")
		read("a.go", "b.go", "c.go", "calc_test.go")
	}
	return calls, compactAfter
}

// runSavingsSession drives the real Claude Code through the session in a
// fresh repository, with or without freshctx, and returns what the model
// was sent and the file each call read ("" for other tools).
func runSavingsSession(b *testing.B, wired bool) ([]agenttest.ToolResult, []string, *agenttest.Anthropic) {
	c := newClaudeRigWired(b, wired)
	r := func(name, text string) {
		if err := os.WriteFile(filepath.Join(c.dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	writeCalcModule(b, c.dir)
	r("a.go", sourceText("A", 12))
	r("b.go", sourceText("B", 15))
	r("c.go", sourceText("C", 10))
	r("notes.md", notesText(60))
	calls, compactAfter := savingsSession(c.dir, testing.Short())
	var script []agenttest.Step
	var files []string
	for i, call := range calls {
		step := agenttest.Step{Calls: []agenttest.ToolUse{call}}
		if i == compactAfter-1 {
			step.InputTokens = 195_000
		}
		script = append(script, step)
		file := ""
		if call.Name == "Read" {
			file = filepath.Base(call.Input["file_path"].(string))
		}
		files = append(files, file)
	}
	api := agenttest.NewAnthropic(b, append(script, agenttest.Step{Text: "done"}))
	c.env = append(c.env, "CLAUDE_CODE_AUTO_COMPACT_WINDOW=20000", "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=50")
	c.runWith(api, "--allowedTools", "Read,Edit,Bash")
	got := api.Results()
	if len(got) != len(calls) {
		b.Fatalf("wired=%v: the model was sent %d tool results for %d calls", wired, len(got), len(calls))
	}
	return got, files, api
}

// BenchmarkClaudeCodeSavings runs one scripted session of 42 tool calls
// (reads, re-reads, edits, test runs, an automatic compaction; 14 with
// -short) through the real Claude Code twice — without freshctx, then with
// `freshctx init claude-code` — and reports the o200k tokens of the tool
// results the model was sent in each, their ratio, and wrong answers: a
// note or diff in place of a read must stand for exactly the file the plain
// run read at that point, given what the same request still held.
func BenchmarkClaudeCodeSavings(b *testing.B) {
	var plainTok, freshTok, plainConv, freshConv, wrong, notes, diffs, calls int
	for b.Loop() {
		plain, files, plainAPI := runSavingsSession(b, false)
		fresh, _, freshAPI := runSavingsSession(b, true)
		plainTok, freshTok, calls = 0, 0, len(plain)
		for i := range plain {
			plainTok += tokens.Count(plain[i].Text)
			freshTok += tokens.Count(fresh[i].Text)
		}
		plainConv, freshConv = conversationTokens(plainAPI), conversationTokens(freshAPI)
		wrong, notes, diffs = wrongAnswers(b, plain, fresh, files)
	}
	b.ReportMetric(float64(calls), "tool_calls")
	b.ReportMetric(float64(plainTok), "plain_result_tokens")
	b.ReportMetric(float64(freshTok), "freshctx_result_tokens")
	b.ReportMetric(1-float64(freshTok)/float64(plainTok), "x_saved")
	b.ReportMetric(float64(plainConv), "plain_conversation_tokens")
	b.ReportMetric(float64(freshConv), "freshctx_conversation_tokens")
	b.ReportMetric(float64(notes), "unchanged_notes")
	b.ReportMetric(float64(diffs), "diffs")
	b.ReportMetric(float64(wrong), "wrong_answers")
	if wrong > 0 {
		b.Errorf("%d wrong answers", wrong)
	}
}

// conversationTokens sums the o200k tokens of the messages of every
// request: what the model reads over the session, each request counted
// whole (system prompt and tool definitions left out: they are the
// agent's, and the same in every request).
func conversationTokens(api *agenttest.Anthropic) int {
	n := 0
	for _, req := range api.Requests() {
		var body struct {
			Messages json.RawMessage `json:"messages"`
		}
		json.Unmarshal(req, &body)
		n += tokens.Count(string(body.Messages))
	}
	return n
}

// claudeLine is the line number Claude Code's Read puts before each line.
var claudeLine = regexp.MustCompile(`(?m)^\s*\d+\t`)

// diffAnswer is the head of a diff answer.
var diffAnswer = regexp.MustCompile(`^\[\S+ changed since you last read it`)

// readLines is a Read result as its lines, numbers taken off.
func readLines(text string) string {
	return strings.TrimRight(claudeLine.ReplaceAllString(text, ""), "\n")
}

// wrongAnswers checks every read answer of the freshctx run against the
// plain run's at the same call. A full answer must be the same file; a note
// must stand for it and a diff lead to it from what the model holds in the
// first request that carried the answer: the latest answer for that file
// there, taken as itself (full), applied (diff) or as it stood (note).
func wrongAnswers(b testing.TB, plain, fresh []agenttest.ToolResult, files []string) (wrong, notes, diffs int) {
	index := map[string]int{}
	for i, r := range fresh {
		index[r.ID] = i
	}
	truth := func(i int) string { return readLines(plain[i].Text) }
	for k, r := range fresh {
		if files[k] == "" {
			continue
		}
		text := readLines(r.Text)
		note := strings.HasPrefix(text, "[unchanged: ")
		diff := diffAnswer.MatchString(text)
		if note {
			notes++
		}
		if diff {
			diffs++
		}
		if !note && !diff {
			if text != truth(k) {
				wrong++
				b.Logf("call %d (%s): full answer differs from the plain read", k, files[k])
			}
			continue
		}
		held, ok := "", false // the model's view of the file in that request
		for _, id := range r.With {
			j, known := index[id]
			if !known || j >= k || files[j] != files[k] {
				continue
			}
			switch v := readLines(fresh[j].Text); {
			case strings.HasPrefix(v, "[unchanged: "):
			case diffAnswer.MatchString(v):
				if ok {
					held, ok = applyAnswer(v, held)
				}
			default:
				held, ok = v, true
			}
		}
		if diff && ok {
			held, ok = applyAnswer(text, held)
		}
		if !ok || held != truth(k) {
			wrong++
			b.Logf("call %d (%s): %.60q does not stand for the file the plain run read", k, files[k], text)
		}
	}
	return wrong, notes, diffs
}

// applyAnswer applies a diff answer to the text the model held.
func applyAnswer(answer, held string) (string, bool) {
	_, d, _ := strings.Cut(answer, "\n")
	after, err := testdiff.Apply(d+"\n", held+"\n")
	return strings.TrimRight(after, "\n"), err == nil
}

// TestWrongAnswersAreCaught: the savings check counts a note for a file
// that changed, a diff that does not lead to the file, and a note whose
// content the request no longer holds.
func TestWrongAnswersAreCaught(t *testing.T) {
	res := func(id, text string, with ...string) agenttest.ToolResult {
		return agenttest.ToolResult{ID: id, Text: text, With: append(with, id)}
	}
	v1, v2 := "1\tone\n2\ttwo", "1\tone\n2\tTWO"
	diff := "1\t[f changed since you last read it; unified diff from what you read to what it is now:]\n2\t--- a/f\n3\t+++ b/f\n4\t@@ -1,2 +1,2 @@\n5\t one\n6\t-two\n7\t+TWO"
	files := []string{"f", "f"}
	for name, tc := range map[string]struct {
		plain, fresh []agenttest.ToolResult
		wrong        int
	}{
		"right note":         {[]agenttest.ToolResult{res("1", v1), res("2", v1)}, []agenttest.ToolResult{res("1", v1), res("2", "1\t[unchanged: f, all 2 lines as you last read them]", "1")}, 0},
		"stale note":         {[]agenttest.ToolResult{res("1", v1), res("2", v2)}, []agenttest.ToolResult{res("1", v1), res("2", "1\t[unchanged: f, all 2 lines as you last read them]", "1")}, 1},
		"note, content gone": {[]agenttest.ToolResult{res("1", v1), res("2", v1)}, []agenttest.ToolResult{res("1", v1), res("2", "1\t[unchanged: f, all 2 lines as you last read them]")}, 1},
		"right diff":         {[]agenttest.ToolResult{res("1", v1), res("2", v2)}, []agenttest.ToolResult{res("1", v1), res("2", diff, "1")}, 0},
		"diff to elsewhere":  {[]agenttest.ToolResult{res("1", v1), res("2", v1)}, []agenttest.ToolResult{res("1", v1), res("2", diff, "1")}, 1},
		"full differs":       {[]agenttest.ToolResult{res("1", v1), res("2", v2)}, []agenttest.ToolResult{res("1", v1), res("2", v1, "1")}, 1},
	} {
		if wrong, _, _ := wrongAnswers(t, tc.plain, tc.fresh, files); wrong != tc.wrong {
			t.Errorf("%s: %d wrong answers, want %d", name, wrong, tc.wrong)
		}
	}
}
