package compress

import (
	"fmt"
	"strings"

	"github.com/freshctx/freshctx/internal/nouns"
)

// Options are what a compressor is made for.
type Options struct {
	Intent Intent
	// Root is the workspace root: stack frames under it (or relative) are
	// the workspace's own and are kept first.
	Root string
}

// Rules adapt the line engine to one tool family. The zero value is the
// generic compressor.
type Rules struct {
	// Transform rewrites a cleaned line before anything else sees it
	// (go test -json events become their text); ok=false skips the line.
	Transform func(line string) (string, bool)
	// Judge classifies a cleaned line, or returns Auto for the generic
	// classification. It may keep state: each compressor gets its own.
	Judge func(line string) Class
	// Before and After are the context lines kept around an important line;
	// 0 means 2. NoContext keeps none.
	Before, After int
	NoContext     bool
	// Block, when set, names the failure a line starts (pytest's
	// "____ test_x[3] ____"). A block whose kept lines equal an earlier
	// block's but for quoted values and numbers collapses into one line
	// naming it; a summary line ends the last block.
	Block func(line string) (name string, ok bool)
}

// Generic is the compressor for output no per-tool compressor claims.
var Generic = Factory{
	Name:  "generic",
	Match: func([]string, []byte) bool { return true },
	New:   func(o Options) Compressor { return NewEngine(o.Intent, Rules{}) },
}

// NewGeneric returns the generic compressor.
func NewGeneric(in Intent) Compressor { return NewEngine(in, Rules{}) }

const (
	// keepAllBelow: an output this short is kept whole (cleaned, collapsed,
	// noise removed).
	keepAllBelow = 20
	// maxKept and maxKeptBytes bound memory and the digest: past either,
	// lines are only counted. A digest of 1 MiB is some 250,000 tokens,
	// more than a model's whole context; only output built to defeat the
	// compressor (long lines, each holding failures and file:line
	// references) comes near it, and made 16 MB digests without it.
	maxKept      = 5000
	maxKeptBytes = 1 << 20
)

// engine keeps important lines with a little context, streaming.
type engine struct {
	intent Intent
	rules  Rules

	prev      string
	prevCount int
	prevClass Class // Auto: judge prev when it is flushed
	prevSeen  Seen  // what a search of prev for file references found
	started   bool

	early     []pending // the first lines, kept whole if the output is short
	selective bool

	before []held // ring of recent dropped lines, for context
	after  int    // context lines still to keep
	// omitted counts dropped lines not yet reported by a marker: those
	// after the last line of before, or after the last line emitted.
	omitted  int
	out      []Kept
	outBytes int // of the texts in out
	capped   int
	// unread counts the lines not read once the digest was full: judging
	// them could only count what it would have kept, and took a sixth of
	// the CPU of a capture of 100 MB of Go source.
	unread int

	blocks blocks

	// headline is the last error or warning line, the head of the
	// diagnostic the lines below it belong to; headlineKept says whether
	// the digest has it. A kept location line brings its headline along.
	headline     string
	headlineKept bool
}

// lines is how many lines of the output p stands for.
func (p pending) lines() int { return max(p.n, 1) }

// held is a line kept back as context for a line that may follow, with
// the dropped lines between it and the line before it: the digest keeps
// the output's order, each marker standing where its lines were.
type held struct {
	text   string
	gap, n int // n: the lines text stands for
}

type pending struct {
	text  string
	class Class
	// n is how many lines of the output it stands for: repeats collapse
	// into one (0 means 1).
	n int
	// skipped > 0: not a line but that many lines a wrapper dropped.
	skipped int
}

// NewEngine returns a compressor driven by rules. Raw keeps every line, so
// it never waits to see how long the output is.
func NewEngine(in Intent, r Rules) Compressor {
	if r.Before == 0 {
		r.Before = 2
	}
	if r.After == 0 {
		r.After = 2
	}
	if r.NoContext {
		r.Before, r.After = 0, 0
	}
	return &engine{intent: in, rules: r, selective: in == Raw}
}

func (g *engine) Line(text string) { g.PreparedLine(Prepared{Clean: Clean(text)}) }

// PreparedLine implements PreparedLiner.
func (g *engine) PreparedLine(p Prepared) {
	if g.full() {
		g.unread++
		return
	}
	text, seen := p.Clean, p.Refs
	if g.rules.Transform != nil {
		t, ok := g.rules.Transform(text)
		if !ok {
			return
		}
		if t != text {
			seen = NotSearched
		}
		text = t
	}
	g.lineSeen(text, Auto, seen)
}

// lineAs takes a cleaned line whose class a wrapper already knows (Auto:
// judge it as usual). Repeats collapse into one line that counts them.
func (g *engine) lineAs(text string, c Class) { g.lineSeen(text, c, NotSearched) }

// lineSeen is lineAs for a line whose search for file references may be
// known (seen).
func (g *engine) lineSeen(text string, c Class, seen Seen) {
	if g.started && text == g.prev && c == g.prevClass {
		g.prevCount++
		return
	}
	g.flushPrev()
	g.prev, g.prevCount, g.prevClass, g.prevSeen, g.started = text, 1, c, seen, true
}

// skip counts lines a wrapper dropped without showing them to the engine,
// so the gap markers still say how much is left out.
func (g *engine) skip(n int) {
	if n <= 0 {
		return
	}
	g.flushPrev()
	g.started = false
	p := pending{class: Noise, skipped: n}
	if !g.selective {
		g.early = append(g.early, p)
		return
	}
	g.take(p)
}

func (g *engine) judge(line string, seen Seen) Class {
	if g.rules.Judge != nil {
		if c := g.rules.Judge(line); c != Auto {
			return c
		}
	}
	return classify(line, seen)
}

func (g *engine) flushPrev() {
	if !g.started {
		return
	}
	text := g.prev
	if g.prevCount > 1 && strings.TrimSpace(text) != "" {
		text = fmt.Sprintf("%s [×%d]", text, g.prevCount)
	}
	class := g.prevClass
	if class == Auto {
		class = g.judge(g.prev, g.prevSeen)
	}
	p := pending{text: text, class: class, n: g.prevCount}
	if !g.selective {
		g.early = append(g.early, p)
		if len(g.early) > keepAllBelow || g.intent == Errors || g.intent == Tests {
			g.selective = true
			for _, e := range g.early {
				g.take(e)
			}
			g.early = nil
		}
		return
	}
	g.take(p)
}

// keeps reports whether the intent keeps a line of this class.
func (g *engine) keeps(c Class) bool {
	switch {
	case c == Noise:
		return false
	case g.intent == Raw:
		return true
	case c == Detail:
		return false
	case g.intent == Errors:
		return c == Error || c == Ref || c == SummaryLine
	case g.intent == Tests:
		return c == Error || c == Ref || c == SummaryLine
	default:
		return c != Plain
	}
}

func (g *engine) take(p pending) {
	if g.rules.Block != nil && p.skipped == 0 {
		if name, ok := g.rules.Block(p.text); ok {
			g.out = g.blocks.close(g.out)
			g.blocks.open(name, len(g.out))
		} else if p.class == SummaryLine {
			g.out = g.blocks.close(g.out)
		}
	}
	g.trackHeadline(p)
	switch {
	case g.keeps(p.class):
		g.keepHeadline(p)
		g.flushBefore()
		g.emit(p.text, prio(p.class))
		g.after = g.rules.After
	case p.skipped > 0:
		g.omitted += p.skipped
	case strings.TrimSpace(p.text) == "":
		// A blank line carries nothing: dropping it is not worth a marker.
	case p.class == Noise, p.class == Detail:
		g.omitted += p.lines()
	case g.after > 0 && g.intent != Tests && g.intent != Errors:
		g.reportGap()
		g.emit(p.text, PrioContext)
		g.after--
	default:
		if g.intent == Tests || g.intent == Errors {
			g.omitted += p.lines() // no context for these intents
			return
		}
		if g.rules.Before == 0 {
			g.omitted += p.lines()
			return
		}
		if len(g.before) == g.rules.Before {
			// The oldest is dropped, with the gap before it, into the gap
			// before the next. Slid in place: re-slicing from the front
			// made append allocate a new array every few lines.
			lost := g.before[0].gap + g.before[0].n
			g.before = g.before[:copy(g.before, g.before[1:])]
			if len(g.before) > 0 {
				g.before[0].gap += lost
			} else {
				g.omitted += lost
			}
		}
		g.before = append(g.before, held{text: p.text, gap: g.omitted, n: p.lines()})
		g.omitted = 0
	}
}

// flushBefore emits the context lines held back, each after a marker for
// the lines dropped before it, then a marker for those dropped since.
func (g *engine) flushBefore() {
	since := g.omitted
	for _, b := range g.before {
		g.omitted = b.gap
		g.reportGap()
		g.emit(b.text, PrioContext)
	}
	g.before = g.before[:0]
	g.omitted = since
	g.reportGap()
}

func (g *engine) reportGap() {
	if g.intent == Errors || g.intent == Tests {
		return // terse intents report one total at the end
	}
	if g.omitted > 0 {
		g.emit(omittedMarker(g.omitted), PrioMarker)
		g.omitted = 0
	}
}

// full reports that the digest can take no more lines, whatever follows:
// it holds maxKept lines or maxKeptBytes bytes and does not collapse
// blocks (which can make room).
func (g *engine) full() bool {
	return g.rules.Block == nil && (len(g.out) >= maxKept || g.outBytes >= maxKeptBytes)
}

// Sated implements Sated: a full digest reads no more lines.
func (g *engine) Sated() bool { return g.full() }

// Skip implements Sated.
func (g *engine) Skip(n int) { g.unread += n }

func (g *engine) emit(text string, p Priority) {
	if len(g.out) >= maxKept || g.outBytes+len(text) > maxKeptBytes {
		g.capped++
		return
	}
	g.outBytes += len(text)
	g.out = append(g.out, Kept{Text: text, Prio: p})
}

func prio(c Class) Priority {
	switch c {
	case Marker:
		return PrioMarker
	case Error:
		return PrioError
	case SummaryLine:
		return PrioSummary
	case Ref:
		return PrioRef
	case Warning:
		return PrioWarning
	}
	return PrioPlain
}

func (g *engine) Finish() []Kept {
	g.flushPrev()
	if !g.selective {
		return g.whole()
	}
	g.out = g.blocks.close(g.out)
	// The last lines often say how it ended: keep them.
	g.flushBefore()
	if g.omitted > 0 && (g.intent == Errors || g.intent == Tests) {
		g.emit(omittedMarker(g.omitted), PrioMarker)
		g.omitted = 0
	}
	if g.capped > 0 || g.unread > 0 {
		g.out = append(g.out, Kept{Text: cappedMarker(g.capped, g.unread), Prio: PrioMarker})
	}
	return g.out
}

// whole is the digest of a short output: every line but noise, with a
// marker where noise was dropped (a blank line goes without one).
func (g *engine) whole() []Kept {
	out := make([]Kept, 0, len(g.early))
	dropped := 0
	for _, e := range g.early {
		switch {
		case e.skipped > 0:
			dropped += e.skipped
		case e.class == Noise || (e.class == Detail && g.intent != Summary):
			if strings.TrimSpace(e.text) != "" {
				dropped += e.lines()
			}
		default:
			if dropped > 0 {
				out = append(out, Kept{Text: omittedMarker(dropped), Prio: PrioMarker})
				dropped = 0
			}
			out = append(out, Kept{Text: e.text, Prio: prio(e.class)})
		}
	}
	if dropped > 0 {
		out = append(out, Kept{Text: omittedMarker(dropped), Prio: PrioMarker})
	}
	return out
}

// cappedMarker says what a digest at its limit left out: the lines it
// would have kept, and the lines it did not read once it could keep none.
func cappedMarker(dropped, unread int) string {
	var parts []string
	if dropped > 0 {
		parts = append(parts, nouns.Count(dropped, "more kept line", "more kept lines")+" dropped")
	}
	if unread > 0 {
		parts = append(parts, nouns.Count(unread, "later line", "later lines")+" not read")
	}
	return fmt.Sprintf("… [%s: the digest's limit of %d lines or %d MiB; see the raw output]",
		strings.Join(parts, ", "), maxKept, maxKeptBytes>>20)
}

// omittedMarker is the line that stands for n dropped lines.
func omittedMarker(n int) string {
	if n == 1 {
		return "… [1 line omitted]"
	}
	return fmt.Sprintf("… [%d lines omitted]", n)
}

// trackHeadline notes the line that heads a diagnostic; a blank line or a
// summary ends the diagnostic.
func (g *engine) trackHeadline(p pending) {
	switch {
	case p.skipped > 0:
	case p.class == Error || p.class == Warning:
		g.headline, g.headlineKept = p.text, false
	case p.class == SummaryLine || strings.TrimSpace(p.text) == "":
		g.headline = ""
	}
}

// keepHeadline emits the headline of the diagnostic a kept line belongs to
// when the intent dropped it: " --> build.rs:2:9" alone does not say what
// is wrong there.
func (g *engine) keepHeadline(p pending) {
	if p.text == g.headline {
		g.headlineKept = true
		return
	}
	if g.headline == "" || g.headlineKept || p.class != Ref {
		return
	}
	g.emit(g.headline, PrioWarning)
	g.headlineKept = true
}
