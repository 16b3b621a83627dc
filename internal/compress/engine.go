package compress

import "fmt"

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
	// 0 means 2.
	Before, After int
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
	// maxKept bounds memory: past it lines are only counted.
	maxKept = 5000
)

// engine keeps important lines with a little context, streaming.
type engine struct {
	intent Intent
	rules  Rules

	prev      string
	prevCount int
	started   bool

	early     []pending // the first lines, kept whole if the output is short
	selective bool

	before  []pending // ring of recent dropped lines, for context
	after   int       // context lines still to keep
	omitted int       // dropped lines not yet reported by a marker
	out     []Kept
	capped  int
	scratch []byte
}

type pending struct {
	text  string
	class Class
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
	return &engine{intent: in, rules: r, selective: in == Raw}
}

func (g *engine) Line(text string) {
	text = Clean(text)
	if g.rules.Transform != nil {
		var ok bool
		if text, ok = g.rules.Transform(text); !ok {
			return
		}
	}
	if g.started && text == g.prev {
		g.prevCount++
		return
	}
	g.flushPrev()
	g.prev, g.prevCount, g.started = text, 1, true
}

func (g *engine) judge(line string) Class {
	if g.rules.Judge != nil {
		if c := g.rules.Judge(line); c != Auto {
			return c
		}
	}
	return classify(line, &g.scratch)
}

func (g *engine) flushPrev() {
	if !g.started {
		return
	}
	text := g.prev
	if g.prevCount > 1 {
		text = fmt.Sprintf("%s [×%d]", text, g.prevCount)
	}
	p := pending{text: text, class: g.judge(g.prev)}
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
	case g.intent == Errors:
		return c == Error || c == Ref || c == SummaryLine
	case g.intent == Tests:
		return c == Error || c == SummaryLine
	default:
		return c != Plain
	}
}

func (g *engine) take(p pending) {
	switch {
	case g.keeps(p.class):
		g.reportGap()
		for _, b := range g.before {
			g.emit(b.text, PrioContext)
		}
		g.before = g.before[:0]
		g.emit(p.text, prio(p.class))
		g.after = g.rules.After
	case p.class == Noise:
		g.omitted++
	case g.after > 0 && g.intent != Tests && g.intent != Errors:
		g.emit(p.text, PrioContext)
		g.after--
	default:
		if g.intent == Tests || g.intent == Errors {
			g.omitted++ // no context for these intents
			return
		}
		if len(g.before) == g.rules.Before {
			g.before = g.before[1:]
			g.omitted++
		}
		g.before = append(g.before, p)
	}
}

func (g *engine) reportGap() {
	if g.intent == Errors || g.intent == Tests {
		return // terse intents report one total at the end
	}
	if g.omitted > 0 {
		g.emit(fmt.Sprintf("… [%d lines omitted]", g.omitted), PrioMarker)
		g.omitted = 0
	}
}

func (g *engine) emit(text string, p Priority) {
	if len(g.out) >= maxKept {
		g.capped++
		return
	}
	g.out = append(g.out, Kept{Text: text, Prio: p})
}

func prio(c Class) Priority {
	switch c {
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
		out := make([]Kept, 0, len(g.early))
		for _, e := range g.early {
			if e.class != Noise {
				out = append(out, Kept{Text: e.text, Prio: prio(e.class)})
			}
		}
		return out
	}
	// The last lines often say how it ended: keep them.
	g.reportGap()
	if g.omitted > 0 && (g.intent == Errors || g.intent == Tests) {
		g.emit(fmt.Sprintf("… [%d lines omitted]", g.omitted), PrioMarker)
		g.omitted = 0
	}
	for _, b := range g.before {
		g.emit(b.text, PrioContext)
	}
	if g.capped > 0 {
		g.out = append(g.out, Kept{Text: fmt.Sprintf("… [%d more kept lines dropped: digest line limit]", g.capped), Prio: PrioMarker})
	}
	return g.out
}
