package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/agenttest"
)

// scenarioText is a file of n lines named after name.
func scenarioText(name string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d of %s, with words enough that the content costs more than a note\n", i, name)
	}
	return b.String()
}

// TestPiReadcacheScenarios replays pi-readcache's acceptance matrix
// (test/ACCEPTANCE_MATRIX.md of its repository; numbers below are its
// items) through the real pi with freshctx's extension, one file per item
// so that none leans on another. Where freshctx differs on purpose the
// test says how, and the README names the difference.
func TestPiReadcacheScenarios(t *testing.T) {
	p := newPiRig(t, true)
	p.testCommands()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(p.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	change := func(name string, line int, text string) func() {
		return func() {
			b, _ := os.ReadFile(filepath.Join(p.dir, name))
			lines := strings.SplitAfter(string(b), "\n")
			lines[line-1] = text + "\n"
			write(name, strings.Join(lines, ""))
		}
	}
	for _, f := range []string{"s1.txt", "s3.txt", "s4.txt", "s5.txt", "s9.txt", "s18.txt", "s27.txt", "s30.txt", "s11.txt"} {
		write(f, scenarioText(f, 40))
	}
	write("big.txt", scenarioText("big.txt", 2100))
	write("latin1.txt", "caf\xe9 cr\xe8me br\xfbl\xe9e\n"+scenarioText("latin1.txt", 30))
	read := func(path string, rng ...int) agenttest.ToolUse {
		in := map[string]any{"path": path}
		if len(rng) == 2 {
			in["offset"], in["limit"] = rng[0], rng[1]
		}
		return agenttest.ToolUse{Name: "read", Input: in}
	}
	refresh := func(path string) agenttest.ToolUse {
		return agenttest.ToolUse{Name: "readcache_refresh", Input: map[string]any{"path": path}}
	}
	rewrite := func(name string) func() { return func() { write(name, scenarioText("rewritten "+name, 40)) } }
	type check struct {
		item string
		call agenttest.ToolUse
		do   func()
		want func(string) bool
	}
	content := func(name string, line int) func(string) bool {
		return func(s string) bool {
			return strings.Contains(s, fmt.Sprintf("line %d of %s", line, name)) && !strings.HasPrefix(s, "[")
		}
	}
	note := func(s string) bool { return strings.HasPrefix(s, "[unchanged: ") }
	diff := func(name string) func(string) bool {
		return func(s string) bool { return strings.HasPrefix(s, "["+name+" changed since you last read it") }
	}
	checks := []check{
		{"1 first full read", read("s1.txt"), nil, content("s1.txt", 40)},
		{"2 unchanged full read", read("s1.txt"), nil, note},
		{"3 (first read)", read("s3.txt"), nil, content("s3.txt", 40)},
		{"3 changed full read: diff", read("s3.txt"), change("s3.txt", 5, "line five, changed"), diff("s3.txt")},
		{"4 (first read)", read("s4.txt"), nil, content("s4.txt", 40)},
		{"4 changed, diff not useful: content", read("s4.txt"), rewrite("s4.txt"), content("rewritten s4.txt", 40)},
		{"5 first range read: the slice", read("s5.txt", 10, 5), nil, content("s5.txt", 12)},
		{"6 same range unchanged", read("s5.txt", 10, 5), nil, func(s string) bool { return strings.HasPrefix(s, "[unchanged: s5.txt lines 10-14") }},
		{"7 changed outside the range", read("s5.txt", 10, 5), change("s5.txt", 30, "line thirty, changed"), func(s string) bool { return strings.HasPrefix(s, "[unchanged: s5.txt lines 10-14") }},
		{"8 changed inside the range", read("s5.txt", 10, 5), change("s5.txt", 12, "line twelve, changed"), func(s string) bool { return strings.Contains(s, "line twelve, changed") && !note(s) }},
		{"9 (first range read)", read("s9.txt", 10, 5), nil, content("s9.txt", 12)},
		{"9 a line inserted before the range", read("s9.txt", 10, 5), change("s9.txt", 1, "a new first line\nline 1 of s9.txt, with words enough that the content costs more than a note"), func(s string) bool { return content("s9.txt", 9)(s) && !note(s) }},
		{"18 (a range)", read("s18.txt", 1, 10), nil, content("s18.txt", 10)},
		{"18 (the whole, changed after the range read)", read("s18.txt"), change("s18.txt", 20, "line twenty, changed"), func(s string) bool { return !note(s) }},
		{"18 the fresher whole stands for the range", read("s18.txt", 1, 10), nil, func(s string) bool { return strings.HasPrefix(s, "[unchanged: s18.txt lines 1-10") }},
		{"24 (a file over pi's 2,000 lines)", read("big.txt"), nil, func(s string) bool { return strings.Contains(s, "Use offset=") && !note(s) }},
		{"24 the note keeps pi's hint to read on", read("big.txt"), nil, func(s string) bool { return note(s) && strings.Contains(s, "Use offset=") }},
		{"28 (first read)", read("s27.txt"), nil, content("s27.txt", 40)},
		{"28 readcache_refresh", refresh("s27.txt"), nil, func(s string) bool { return strings.Contains(s, "returns its content") }},
		{"28 the next read is content", read("s27.txt"), nil, content("s27.txt", 40)},
		{"30 (a range)", read("s30.txt", 1, 5), nil, content("s30.txt", 5)},
		{"30 (refresh of the whole file)", refresh("s30.txt"), nil, func(s string) bool { return true }},
		{"30 refreshing the whole wipes every range", read("s30.txt", 1, 5), nil, content("s30.txt", 5)},
		{"10 differs: pi's read takes no PATH:START-END", read("s1.txt:1-5"), nil, func(s string) bool { return !note(s) && !content("s1.txt", 3)(s) }},
		{"23 differs: text not UTF-8 is kept in pi's form", read("latin1.txt"), nil, content("latin1.txt", 30)},
		{"23 differs: … so a second read is the note", read("latin1.txt"), nil, note},
	}
	var script []agenttest.Step
	for _, c := range checks {
		script = append(script, agenttest.Step{Calls: []agenttest.ToolUse{c.call}, Before: c.do})
	}
	api := agenttest.NewAnthropic(t, append(script, agenttest.Step{Text: "done"}))
	p.models(api, 200000)
	out := p.run(api, "Replay the scenarios.")
	results := api.ToolResults()
	if len(results) != len(checks) {
		t.Fatalf("%d tool results for %d calls\npi: %s", len(results), len(checks), out)
	}
	for i, c := range checks {
		if !c.want(results[i]) {
			t.Errorf("item %s: the model got %.300q", c.item, results[i])
		}
	}

	// 27 and 29: /readcache-refresh, in one pi process, holds in the next.
	p.session(0, "-c", "/readcache-refresh s1.txt")
	p.file = "s1.txt"
	if r := p.session(1, "-c", "Read s1 again."); !content("s1.txt", 40)(r[0]) {
		t.Errorf("items 27, 29: after /readcache-refresh and a restart: %.200q, want content", r[0])
	}
	// 11: back on the tree before s11.txt was first read, a changed
	// s11.txt is content, never a diff from the other branch's read.
	p.file = "s11.txt"
	p.session(1, "-c", "Read s11.")
	first := p.userEntry(0)
	change("s11.txt", 3, "line three, changed")()
	if r := p.session(1, "-c", "/t-goto "+first, "On another branch."); !content("s11.txt", 3)(strings.ReplaceAll(r[0], "line three, changed", "line 3 of s11.txt")) || diff("s11.txt")(r[0]) || note(r[0]) {
		t.Errorf("item 11: on a branch that never read s11.txt: %.200q, want content", r[0])
	}
	// 14: the latest of several compactions is the boundary.
	if r := p.session(1, "-c", "/t-compact", "/t-compact", "After two compactions."); note(r[0]) || diff("s11.txt")(r[0]) {
		t.Errorf("item 14: after two compactions: %.200q, want content", r[0])
	}
}

// userEntry is the id of the nth user message (from 0) of the newest
// session file.
func (p *piRig) userEntry(n int) string {
	p.t.Helper()
	for _, e := range p.sessionEntries() {
		if m, _ := e["message"].(map[string]any); m != nil && m["role"] == "user" {
			if n == 0 {
				return e["id"].(string)
			}
			n--
		}
	}
	p.t.Fatal("no such user message in the session")
	return ""
}
