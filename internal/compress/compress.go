// Package compress turns a command's output into a digest an agent can read:
// it keeps every line that carries an error, failure, panic, warning or file
// reference (with a little context) and the tool's own summary lines, and
// drops the rest, saying how much it dropped.
//
// Compressors are streaming — they see one cleaned line at a time and hold a
// bounded amount of it — and are chosen from a registry by the command line
// and the first bytes of output. This package holds the registry and the
// generic compressor; per-tool ones register themselves beside it.
package compress

import (
	"fmt"
	"github.com/freshctx/freshctx/internal/rx"
	"slices"
	"strings"
)

// Intent says what the digest is for.
type Intent string

// The intents of `--intent`.
const (
	Summary Intent = "summary"
	Errors  Intent = "errors"
	Tests   Intent = "tests"
	Raw     Intent = "raw"
)

// ParseIntent validates a user-given intent; "" means Summary.
func ParseIntent(s string) (Intent, error) {
	switch Intent(s) {
	case "":
		return Summary, nil
	case Summary, Errors, Tests, Raw:
		return Intent(s), nil
	}
	return "", fmt.Errorf("unknown intent %q: want summary, errors, tests or raw", s)
}

// Compressor digests a stream of cleaned lines.
type Compressor interface {
	// Line takes the next line of output, without its newline.
	Line(text string)
	// Finish returns the digest lines, in output order.
	Finish() []Kept
}

// Kept is one line of a digest and why it was kept.
type Kept struct {
	Text string
	Prio Priority
}

// Priority orders what --max-tokens drops first (lowest first).
type Priority int

// Priorities, lowest first.
const (
	PrioContext Priority = iota
	PrioPlain
	PrioMarker
	PrioWarning
	PrioRef
	PrioSummary
	PrioError
)

// Factory makes a compressor for one tool family.
type Factory struct {
	Name string
	// Match reports whether the family produced this output.
	Match func(argv []string, head []byte) bool
	New   func(Options) Compressor
}

var registry []Factory

// family makes the factory of a tool family recognised by its command line
// or by the head of its output, driven by the rules newRules makes.
func family(name string, cmd commandLine, head *rx.Regexp, newRules func(root string) Rules) Factory {
	return Factory{
		Name:  name,
		Match: matchBy(cmd, head),
		New:   func(o Options) Compressor { return NewEngine(o.Intent, newRules(o.Root)) },
	}
}

// commandLine recognises a family's command lines: an expression, and
// words of which every line it matches holds one. A line holding none is
// turned away without the expression, which is compiled on its first use:
// a command of no family (`run -- true`, `run -- ls`) compiled every
// family's expression to find that none matched, most of its analysis.
// TestCommandWordsHoldEveryMatch checks the words against the expression.
type commandLine struct {
	re    *rx.Regexp
	words []string
}

func command(expr string, words ...string) commandLine {
	return commandLine{re: rx.MustCompile(expr), words: words}
}

// match reports whether line is one of the family's command lines.
func (c commandLine) match(line string) bool {
	for _, w := range c.words {
		if strings.Contains(line, w) {
			return c.re.MatchString(line)
		}
	}
	return false
}

// matchBy matches a command line by cmd or an output's head by head. Each
// expression is compiled on its first use, so an empty side is not
// matched: a `run -- true` compiled every family's head expression to
// find that none matches nothing.
func matchBy(cmd commandLine, head *rx.Regexp) func(argv []string, out []byte) bool {
	return func(argv []string, out []byte) bool {
		return (len(argv) > 0 && cmd.match(strings.Join(argv, " "))) || (len(out) > 0 && head.Match(out))
	}
}

// Register adds a factory; later registrations are tried first.
func Register(f Factory) { registry = append(registry, f) }

// Select picks the compressor family for a command and the head of its
// output; the generic one when nothing else matches. What the output shows
// wins over what the command line suggests (`make check` may run go test).
func Select(argv []string, head []byte) Factory {
	// An output that shows nothing is not searched: each family's
	// expression would be compiled for it (most of a `run -- true`'s
	// analysis), and none matches nothing.
	for _, f := range slices.Backward(registry) {
		if len(head) > 0 && f.Match(nil, head) {
			return f
		}
	}
	for _, f := range slices.Backward(registry) {
		if f.Match(argv, nil) {
			return f
		}
	}
	return Generic
}

// Render joins digest lines into text.
func Render(lines []Kept) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}
