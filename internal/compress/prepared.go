package compress

import "github.com/freshctx/freshctx/internal/refs"

// Prepared is an output line as Clean returns it, with what refs.Line
// finds in it when the caller has searched it already: a capture cleans
// every line and searches it for the files it names anyway, and doing
// both again in the compressor was a tenth of a capture of source.
type Prepared struct {
	Clean string
	Refs  Seen
}

// Seen says what a search of a line for file references found.
type Seen uint8

// The answers of a search for file references.
const (
	NotSearched Seen = iota
	NoRef
	HasRef
)

// PreparedLiner is a Compressor that takes prepared lines:
// PreparedLine(Prepared{Clean(text), s}) is Line(text), for s either
// NotSearched or what refs.Line finds in Clean(text).
type PreparedLiner interface {
	Compressor
	PreparedLine(p Prepared)
}

// SeenIn says whether refs.Line finds a reference in a line.
func SeenIn(line string) Seen {
	if len(refs.Line(line)) > 0 {
		return HasRef
	}
	return NoRef
}

// Sated is a Compressor that can say it reads no more lines: every line
// given to it from then on is counted, not read or kept. Until Sated
// reports true, a compressor may keep any line it was given (or part of
// it) to the end, so a caller that reuses the memory of its lines copies
// them first; once it is true, it need not, and Skip(n) counts n lines as
// n calls of Line would, without them.
type Sated interface {
	Sated() bool
	Skip(n int)
}
