// Package facts finds what recall searches by in tool output: names of
// failing tests, error codes (E0308, TS2322, CS1002, lint rule ids) and
// symbols that errors name (undefined identifiers, exception types).
//
// Extraction is per line and cheap; a line without a hint is not searched.
// Set collects the facts of a whole output, de-duplicated and bounded.
package facts

import (
	"math/bits"
	"slices"
	"strings"

	"github.com/freshctx/freshctx/internal/rx"
)

// Kind is what a fact names.
type Kind string

// The kinds, as stored.
const (
	Test   Kind = "test"
	Code   Kind = "code"
	Symbol Kind = "symbol"
)

// Fact is one thing an output says.
type Fact struct {
	Kind  Kind
	Value string
}

type pattern struct {
	kind Kind
	hint string // a substring the line must contain, "" for none
	re   *rx.Regexp
	// gate, if set, is a cheap test a line must pass besides the hint.
	gate func(string) bool
}

var patterns = []pattern{
	// Failing tests, per runner.
	{Test, "FAIL", rx.MustCompile(`--- FAIL: (\S+)`), nil},
	{Test, `"fail"`, rx.MustCompile(`"Action":"fail".*"Test":"([^"]+)"`), nil},
	{Test, "FAILED", rx.MustCompile(`^test (\S+) \.\.\. FAILED`), nil},
	{Test, "----", rx.MustCompile(`^---- (\S+) stdout ----`), nil},
	{Test, "panicked", rx.MustCompile(`thread '([^']+)'(?: \(\d+\))? panicked`), nil},
	{Test, "FAILED", rx.MustCompile(`FAILED (\S+::\S+)`), nil},
	{Test, "FAILED", rx.MustCompile(`(\S+::\S+) FAILED`), nil},
	{Test, ": ", rx.MustCompile(`^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)`), nil},
	{Test, "●", rx.MustCompile(`● (.+?)\s*$`), nil},
	{Test, "✕", rx.MustCompile(`✕ (.+?)(?: \(\d+(?:\.\d+)? ?m?s\))?\s*$`), nil},
	{Test, "×", rx.MustCompile(`× (.+?)(?: \d+(?:\.\d+)?m?s)?\s*$`), nil},
	{Test, "not ok", rx.MustCompile(`^\s*not ok \d+ - (.+?)\s*$`), nil},
	{Test, "ERROR", rx.MustCompile(`^\[ERROR\]\s+(\w+\.\w+):\d+`), nil},
	{Test, "FAILURE", rx.MustCompile(`<<< FAILURE!.*(?: - in |\()([\w.$]+)\)?`), nil},
	// Error codes.
	{Code, "[E", rx.MustCompile(`\b(?:error|warning)\[(E\d{4})\]`), nil},
	{Code, "TS", rx.MustCompile(`\b(TS\d{4,5})\b`), nil},
	{Code, "CS", rx.MustCompile(`\b(CS\d{4})\b`), nil},
	{Code, "clippy::", rx.MustCompile(`\b(clippy::\w+)`), nil},
	{Code, "  ", rx.MustCompile(`^\s+\d+:\d+\s+(?:error|warning)\s+.+?\s{2,}(@?[a-z][\w-]*(?:/[\w-]+)?)\s*$`), digitAfterIndent},
	{Code, ": ", rx.MustCompile(`^\S+:\d+:\d+: ([A-Z]\d{3,4}) `), lineColInFirstWord},
	// Symbols named by errors.
	{Symbol, "undefined", rx.MustCompile(`undefined: (\w+)`), nil},
	{Symbol, "cannot find", rx.MustCompile("cannot find (?:value|function|type|struct|trait|macro|module|crate|symbol) `(\\w+)`"), nil},
	{Symbol, "symbol:", rx.MustCompile(`symbol:\s+(?:variable|method|class|function) (\w+)`), nil},
	{Symbol, "'", rx.MustCompile(`'(\w+)' (?:is not defined|is defined but never used|was not declared|is declared but its value is never read|has no attribute)`), verdictAfterQuote},
	{Symbol, "undefined reference", rx.MustCompile("undefined reference to [`'](\\w+)'"), nil},
	{Symbol, "Error", rx.MustCompile(`\b([A-Z]\w*(?:Error|Exception))\b`), errorName}, // Exception: the next one's
	{Symbol, "xception", rx.MustCompile(`\b([A-Z]\w*Exception)\b`), exceptionName},
}

// digitAfterIndent admits a line that starts with white space and then a
// digit.
func digitAfterIndent(line string) bool {
	t := rx.TrimLeftSpace(line)
	return len(t) < len(line) && t != "" && '0' <= t[0] && t[0] <= '9'
}

// verdictAfterQuote admits a line where a quote is followed by " is ",
// " was " or " has ", as the verdicts on a quoted name begin.
func verdictAfterQuote(line string) bool {
	return strings.Contains(line, "' is ") || strings.Contains(line, "' was ") || strings.Contains(line, "' has ")
}

// errorName admits a line with a class name (rx.ClassName) ending in
// "Error" or "Exception": most lines of Go source that hold "Error" hold
// it in `Errorf(` or `.Error()`.
func errorName(line string) bool { return rx.ClassName(line, "Error") || exceptionName(line) }

// exceptionName is errorName for "Exception" alone.
func exceptionName(line string) bool { return rx.ClassName(line, "Exception") }

// lineColInFirstWord admits a line whose first word holds ':' and a digit.
func lineColInFirstWord(line string) bool {
	word := line
	if i := rx.IndexSpace(line); i >= 0 {
		word = line[:i]
	}
	for i := 0; i+1 < len(word); i++ {
		if word[i] == ':' && '0' <= word[i+1] && word[i+1] <= '9' {
			return true
		}
	}
	return false
}

// hintsByByte lists, for each byte, the patterns whose hint starts with
// it; hintPairs marks the first two bytes of those hints, and for a hint
// of one byte every pair it starts (a zero byte standing for the line's
// end), so most positions of a line are passed over with one bit test;
// noHint is the set of the patterns without a hint.
var hintsByByte, hintPairs, noHint = func() (t [256][]int, pairs [1 << 16 / 64]uint64, none uint64) {
	if len(patterns) > 64 {
		panic("facts: more patterns than hintsIn's mask holds")
	}
	mark := func(pair uint16) { pairs[pair/64] |= 1 << (pair % 64) }
	for i, p := range patterns {
		switch len(p.hint) {
		case 0:
			none |= 1 << i
			continue
		case 1:
			for next := range 256 {
				mark(uint16(p.hint[0])<<8 | uint16(next))
			}
		default:
			mark(uint16(p.hint[0])<<8 | uint16(p.hint[1]))
		}
		t[p.hint[0]] = append(t[p.hint[0]], i)
	}
	return t, pairs, none
}()

// hintsIn returns the set of patterns whose hint line holds (or that have
// none), found in one pass over the line: a bit test per byte pair, and a
// look at the hints that start at a pair that is marked.
func hintsIn(line string) uint64 {
	set := noHint
	if line == "" {
		return set
	}
	prev := line[0]
	for i := 1; i < len(line); i++ {
		c := line[i]
		if pair := uint16(prev)<<8 | uint16(c); hintPairs[pair/64]&(1<<(pair%64)) != 0 {
			set = hintsAt(line, i-1, set)
		}
		prev = c
	}
	if pair := uint16(prev) << 8; hintPairs[pair/64]&(1<<(pair%64)) != 0 {
		set = hintsAt(line, len(line)-1, set) // the hints of one byte
	}
	return set
}

// hintsAt adds to set the patterns whose hint starts at line[i].
func hintsAt(line string, i int, set uint64) uint64 {
	for _, k := range hintsByByte[line[i]] {
		if set&(1<<k) == 0 && strings.HasPrefix(line[i:], patterns[k].hint) {
			set |= 1 << k
		}
	}
	return set
}

// Line returns the facts one line carries.
func Line(line string) []Fact {
	var try uint64
	for set := hintsIn(line); set != 0; set &= set - 1 {
		i := bits.TrailingZeros64(set)
		if patterns[i].gate == nil || patterns[i].gate(line) {
			try |= 1 << i
		}
	}
	if try == 0 {
		return nil // most lines
	}
	return find(line, try)
}

// find runs the patterns in the set try over line.
func find(line string, try uint64) []Fact {
	var out []Fact
	for ; try != 0; try &= try - 1 {
		p := patterns[bits.TrailingZeros64(try)]
		for _, m := range p.re.FindAllStringSubmatch(line, -1) {
			v := m[1]
			if p.kind == Test && len(m) > 2 && m[2] != "" {
				v = m[2] + "." + m[1] // runner.Class.test forms name the class too
				if strings.HasSuffix(m[2], "."+m[1]) {
					v = m[2]
				}
			}
			f := Fact{Kind: p.kind, Value: strings.TrimSpace(v)}
			if f.Value != "" && len(f.Value) <= 300 && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// Short returns the last component of a test name ("pkg::tests::add" →
// "add", "TestA/sub" → "sub", "Suite › case" → "case"), or "" when the name
// has a single component.
func Short(name string) string {
	for _, sep := range []string{" › ", " > ", "::", "/", "."} {
		if i := strings.LastIndex(name, sep); i >= 0 {
			return strings.TrimSpace(name[i+len(sep):])
		}
	}
	return ""
}

// Set gathers facts, de-duplicated, at most Max (0: 1,000).
type Set struct {
	Max  int
	seen map[Fact]bool
	list []Fact
}

// Add records the facts of a line. The set keeps copies of the facts it
// keeps, never a part of line: the caller may reuse line's memory.
func (s *Set) Add(line string) {
	max := s.Max
	if max == 0 {
		max = 1000
	}
	for _, f := range Line(line) {
		if len(s.list) >= max {
			return
		}
		if s.seen == nil {
			s.seen = map[Fact]bool{}
		}
		if !s.seen[f] {
			f.Value = strings.Clone(f.Value)
			s.seen[f] = true
			s.list = append(s.list, f)
		}
	}
}

// List returns the facts in the order first seen.
func (s *Set) List() []Fact { return s.list }

// Text renders the facts for full-text indexing, short test names included.
func (s *Set) Text() string {
	var b strings.Builder
	for _, f := range s.list {
		b.WriteString(f.Value)
		if f.Kind == Test {
			if short := Short(f.Value); short != "" {
				b.WriteString(" " + short)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
