package compress

import (
	"fmt"
	"sort"

	"github.com/freshctx/freshctx/internal/tokens"
)

// Capped is a digest fitted to a token budget.
type Capped struct {
	Text   string
	Tokens int
	// Omitted says what the budget left out, "" when nothing.
	Omitted string
}

// Fit renders lines within maxTokens (0: no cap), dropping the lowest
// priority lines first (context, then plain, markers, warnings, references,
// summaries, errors last) and the later line of equal priority first. The
// note saying what was left out is part of the budget.
func Fit(lines []Kept, maxTokens int) Capped {
	text := Render(lines)
	n := tokens.Count(text)
	if maxTokens <= 0 || n <= maxTokens {
		return Capped{Text: text, Tokens: n}
	}
	cost := make([]int, len(lines))
	for i, l := range lines {
		cost[i] = tokens.Count(l.Text + "\n")
	}
	order := make([]int, len(lines))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		la, lb := lines[order[a]], lines[order[b]]
		if la.Prio != lb.Prio {
			return la.Prio > lb.Prio
		}
		return order[a] < order[b]
	})
	const noteReserve = 40
	keep := make([]bool, len(lines))
	used := 0
	for _, i := range order {
		if used+cost[i] > maxTokens-noteReserve {
			continue
		}
		keep[i] = true
		used += cost[i]
	}
	var out []Kept
	droppedLines, droppedErrors := 0, 0
	for i, l := range lines {
		if keep[i] {
			out = append(out, l)
			continue
		}
		droppedLines++
		if l.Prio == PrioError {
			droppedErrors++
		}
	}
	note := fmt.Sprintf("%d digest lines (%d with errors) left out to fit %d tokens; see the raw output", droppedLines, droppedErrors, maxTokens)
	out = append(out, Kept{Text: "… [" + note + "]", Prio: PrioMarker})
	text = Render(out)
	return Capped{Text: text, Tokens: tokens.Count(text), Omitted: note}
}
