package compress

import "fmt"

// Generic is the compressor for output no per-tool compressor claims.
var Generic = Factory{
	Name:  "generic",
	Match: func([]string, []byte) bool { return true },
	New:   func(in Intent) Compressor { return NewGeneric(in) },
}

const (
	contextBefore = 2
	contextAfter  = 2
	// keepAllBelow: an output this short is kept whole (cleaned, collapsed).
	keepAllBelow = 20
	// maxKept bounds memory: past it lines are only counted.
	maxKept = 5000
)

// generic keeps important lines with a little context, streaming.
type generic struct {
	intent Intent

	prev      string
	prevCount int
	started   bool

	early     []pending // the first lines, kept whole if the output is short
	selective bool

	before  []pending // ring of recent dropped lines, for context
	after   int       // context lines still to keep
	omitted int       // dropped lines not yet reported by a marker
	total   int
	out     []Kept
	capped  int
}

type pending struct {
	text  string
	class Class
}

// NewGeneric returns the generic compressor.
// Raw keeps every line, so it never waits to see how long the output is.
func NewGeneric(in Intent) Compressor { return &generic{intent: in, selective: in == Raw} }

func (g *generic) Line(text string) {
	text = Clean(text)
	if g.started && text == g.prev {
		g.prevCount++
		return
	}
	g.flushPrev()
	g.prev, g.prevCount, g.started = text, 1, true
}

func (g *generic) flushPrev() {
	if !g.started {
		return
	}
	text := g.prev
	if g.prevCount > 1 {
		text = fmt.Sprintf("%s [×%d]", text, g.prevCount)
	}
	p := pending{text: text, class: classify(g.prev)}
	g.total++
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
func (g *generic) keeps(c Class) bool {
	switch g.intent {
	case Raw:
		return true
	case Errors:
		return c == Error || c == Ref || c == SummaryLine
	case Tests:
		return c == Error || c == SummaryLine
	default:
		return c != Plain
	}
}

func (g *generic) take(p pending) {
	switch {
	case g.keeps(p.class):
		g.reportGap()
		for _, b := range g.before {
			g.emit(b.text, PrioContext)
		}
		g.before = g.before[:0]
		g.emit(p.text, prio(p.class))
		g.after = contextAfter
	case g.after > 0 && g.intent != Tests && g.intent != Errors:
		g.emit(p.text, PrioContext)
		g.after--
	default:
		if len(g.before) == contextBefore {
			g.before = g.before[1:]
			g.omitted++
		}
		if g.intent == Tests || g.intent == Errors {
			g.omitted++ // no context for these intents
			return
		}
		g.before = append(g.before, p)
	}
}

func (g *generic) reportGap() {
	if g.omitted > 0 {
		g.emit(fmt.Sprintf("… [%d lines omitted]", g.omitted), PrioMarker)
		g.omitted = 0
	}
}

func (g *generic) emit(text string, p Priority) {
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

func (g *generic) Finish() []Kept {
	g.flushPrev()
	if !g.selective {
		out := make([]Kept, 0, len(g.early))
		for _, e := range g.early {
			out = append(out, Kept{Text: e.text, Prio: prio(e.class)})
		}
		return out
	}
	// The last lines often say how it ended: keep them.
	g.reportGap()
	for _, b := range g.before {
		g.emit(b.text, PrioContext)
	}
	if g.capped > 0 {
		g.out = append(g.out, Kept{Text: fmt.Sprintf("… [%d more kept lines dropped: digest line limit]", g.capped), Prio: PrioMarker})
	}
	return g.out
}
