package compress

import (
	"encoding/json"
	"github.com/freshctx/freshctx/internal/rx"
	"strings"
)

// goTests regroups the output of go test -v (and -json, whose output events
// carry the same text) by test before the line engine sees it. go test -v
// prints a test's log lines between its "=== RUN" and its "--- PASS" or
// "--- FAIL" line; read in order, a failure's message sits above its header
// and reads as the previous test's, and a passing test's t.Log lines look
// like findings. So a test's lines are held until its result: a passing or
// skipped test's are dropped (counted in the gap markers), a failing test's
// follow its "--- FAIL" header, as plain go test prints them. Lines of tests
// with no result when a panic or the package's result arrives (a crash, a
// timeout) go out under their "=== RUN" line, which then counts as an error.
type goTests struct {
	engine    *engine
	transform func(string) (string, bool)
	current   string
	held      map[string]*heldTest
	order     []string // names in held, first run first
	heldLines int
	heldBytes int // of the held lines' texts
	// spare are heldTests done with, to be used again: a log holds one for
	// every test it runs, and allocating each (with a new map at every
	// package's end) was 14% of what a capture of go test -v allocated.
	spare []*heldTest
}

type heldTest struct {
	run     string // the === RUN line
	lines   []string
	dropped int // lines past the caps
}

const (
	// maxHeldPerTest, maxHeld and maxHeldBytes bound memory: past them a
	// test's lines are counted, not kept.
	maxHeldPerTest = 2000
	maxHeld        = 50000
	maxHeldBytes   = 4 << 20
)

var (
	// goFlush are lines printed outside any test: a crash, the package's
	// result. Whatever is still held goes out before them.
	goFlush = rx.MustCompile(`^(panic: |fatal error: |(ok|FAIL)\s+\S+\s|FAIL$|PASS$|exit status \d+$|\*\*\* Test killed)`)
)

// goMarker reads `^=== (RUN|CONT|NAME|PAUSE)\s+(\S+)`: a test starting,
// resuming or naming itself.
func goMarker(line string) (verb, name string, ok bool) {
	rest, ok := strings.CutPrefix(line, "=== ")
	if !ok {
		return "", "", false
	}
	return verbAndName(rest, []string{"RUN", "CONT", "NAME", "PAUSE"}, "")
}

// goResult reads `^\s*--- (PASS|FAIL|SKIP): (\S+)`: a test's result.
func goResult(line string) (verb, name string, ok bool) {
	rest, ok := strings.CutPrefix(rx.TrimLeftSpace(line), "--- ")
	if !ok {
		return "", "", false
	}
	return verbAndName(rest, []string{"PASS", "FAIL", "SKIP"}, ":")
}

// verbAndName reads one of verbs, then sep, then one or more spaces, then
// a name: the bytes up to the next space.
func verbAndName(s string, verbs []string, sep string) (verb, name string, ok bool) {
	for _, v := range verbs {
		rest, found := strings.CutPrefix(s, v+sep)
		if !found {
			continue
		}
		if sep != "" {
			// The expression wants exactly one space after the colon.
			if rest, found = strings.CutPrefix(rest, " "); !found {
				return "", "", false
			}
		} else if t := rx.TrimLeftSpace(rest); len(t) < len(rest) {
			rest = t
		} else {
			return "", "", false
		}
		if end := rx.IndexSpace(rest); end >= 0 {
			rest = rest[:end]
		}
		if rest == "" {
			return "", "", false
		}
		return v, rest, true
	}
	return "", "", false
}

func newGoTests(e *engine, transform func(string) (string, bool)) *goTests {
	return &goTests{engine: e, transform: transform, held: map[string]*heldTest{}}
}

func (g *goTests) Line(text string) { g.PreparedLine(Prepared{Clean: Clean(text)}) }

// Sated implements Sated: once its engine is full, the wrapper reads no
// more lines either.
func (g *goTests) Sated() bool { return g.engine.full() }

// Skip implements Sated.
func (g *goTests) Skip(n int) { g.engine.Skip(n) }

// PreparedLine implements PreparedLiner; what the search for references
// found is not used: the line may be held, rewritten, before the engine
// judges it.
func (g *goTests) PreparedLine(p Prepared) {
	if g.engine.full() {
		g.engine.unread++ // nothing it holds or reads can be kept now
		return
	}
	text := p.Clean
	var ok bool
	if text, ok = g.transform(text); !ok {
		return
	}
	if verb, name, ok := goMarker(text); ok {
		g.current = name
		if verb == "PAUSE" {
			g.current = ""
		}
		if verb == "RUN" && g.held[name] == nil {
			g.held[name] = g.newHeld(text)
			g.order = append(g.order, name)
		}
		g.engine.skip(1)
		return
	}
	if verb, name, ok := goResult(text); ok {
		g.result(text, verb, name)
		return
	}
	if goFlush.MatchString(text) {
		g.flushAll()
		g.current = ""
		g.engine.lineAs(text, Auto)
		return
	}
	t := g.held[g.current]
	if t == nil {
		g.engine.lineAs(text, Auto)
		return
	}
	if len(t.lines) >= maxHeldPerTest || g.heldLines >= maxHeld || g.heldBytes+len(text) > maxHeldBytes {
		t.dropped++
		return
	}
	t.lines = append(t.lines, text)
	g.heldLines++
	g.heldBytes += len(text)
}

// reuseHeld is false only in the test that holds reuse to change nothing.
var reuseHeld = true

// newHeld is a heldTest for the test whose "=== RUN" line is run, a spare
// one if there is one.
func (g *goTests) newHeld(run string) *heldTest {
	n := len(g.spare)
	if n == 0 || !reuseHeld {
		return &heldTest{run: run}
	}
	t := g.spare[n-1]
	g.spare = g.spare[:n-1]
	*t = heldTest{run: run, lines: t.lines}
	return t
}

// release keeps t, done with, as a spare; its texts go.
func (g *goTests) release(t *heldTest) {
	clear(t.lines)
	t.lines = t.lines[:0]
	g.spare = append(g.spare, t)
}

// result handles a test's "--- PASS/FAIL/SKIP" line.
func (g *goTests) result(text, verdict, name string) {
	if g.current == name {
		g.current = ""
	}
	t := g.held[name]
	g.forget(name)
	if verdict != "FAIL" {
		if t != nil {
			g.engine.skip(len(t.lines) + t.dropped)
			g.release(t)
		}
		g.engine.skip(1)
		return
	}
	g.engine.lineAs(text, Auto)
	if t != nil {
		g.replay(t)
		g.release(t)
	}
}

func (g *goTests) replay(t *heldTest) {
	for _, l := range t.lines {
		g.engine.lineAs(l, Auto)
	}
	g.engine.skip(t.dropped)
}

func (g *goTests) forget(name string) {
	t := g.held[name]
	if t == nil {
		return
	}
	g.heldLines -= len(t.lines)
	for _, l := range t.lines {
		g.heldBytes -= len(l)
	}
	delete(g.held, name)
	for i, n := range g.order {
		if n == name {
			g.order = append(g.order[:i], g.order[i+1:]...)
			break
		}
	}
}

// flushAll sends out the lines of every test that has no result yet, each
// under its "=== RUN" line: the test was running when the package ended.
func (g *goTests) flushAll() {
	for _, name := range g.order {
		t := g.held[name]
		if len(t.lines) == 0 && t.dropped == 0 {
			continue
		}
		g.engine.lineAs(t.run+" (no result)", Error)
		g.replay(t)
	}
	for _, t := range g.held {
		g.release(t)
	}
	clear(g.held)
	clear(g.order)
	g.order, g.heldLines, g.heldBytes = g.order[:0], 0, 0
}

func (g *goTests) Finish() []Kept {
	g.flushAll()
	return g.engine.Finish()
}

// goJSON turns a go test -json event into the text it carries; other
// events are dropped (run/pass/fail events repeat what the output said).
func goJSON(line string) (string, bool) {
	if !strings.HasPrefix(line, `{"`) || !strings.Contains(line, `"Action":`) {
		return line, true
	}
	var ev goEvent
	if json.Unmarshal([]byte(line), &ev) != nil {
		return line, true
	}
	if ev.Action != "output" {
		return "", false
	}
	return strings.TrimRight(ev.Output, "\n"), true
}
