// Package facts finds what recall searches by in tool output: names of
// failing tests, error codes (E0308, TS2322, CS1002, lint rule ids) and
// symbols that errors name (undefined identifiers, exception types).
//
// Extraction is per line and cheap; a line without a hint is not searched.
// Set collects the facts of a whole output, de-duplicated and bounded.
package facts

import (
	"regexp"
	"slices"
	"strings"
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
	re   *regexp.Regexp
}

var patterns = []pattern{
	// Failing tests, per runner.
	{Test, "FAIL", regexp.MustCompile(`--- FAIL: (\S+)`)},
	{Test, `"fail"`, regexp.MustCompile(`"Action":"fail".*"Test":"([^"]+)"`)},
	{Test, "FAILED", regexp.MustCompile(`^test (\S+) \.\.\. FAILED`)},
	{Test, "----", regexp.MustCompile(`^---- (\S+) stdout ----`)},
	{Test, "panicked", regexp.MustCompile(`thread '([^']+)'(?: \(\d+\))? panicked`)},
	{Test, "FAILED", regexp.MustCompile(`FAILED (\S+::\S+)`)},
	{Test, "FAILED", regexp.MustCompile(`(\S+::\S+) FAILED`)},
	{Test, ": ", regexp.MustCompile(`^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)`)},
	{Test, "●", regexp.MustCompile(`● (.+?)\s*$`)},
	{Test, "✕", regexp.MustCompile(`✕ (.+?)(?: \(\d+(?:\.\d+)? ?m?s\))?\s*$`)},
	{Test, "×", regexp.MustCompile(`× (.+?)(?: \d+(?:\.\d+)?m?s)?\s*$`)},
	{Test, "not ok", regexp.MustCompile(`^\s*not ok \d+ - (.+?)\s*$`)},
	{Test, "ERROR", regexp.MustCompile(`^\[ERROR\]\s+(\w+\.\w+):\d+`)},
	{Test, "FAILURE", regexp.MustCompile(`<<< FAILURE!.*(?: - in |\()([\w.$]+)\)?`)},
	// Error codes.
	{Code, "[E", regexp.MustCompile(`\b(?:error|warning)\[(E\d{4})\]`)},
	{Code, "TS", regexp.MustCompile(`\b(TS\d{4,5})\b`)},
	{Code, "CS", regexp.MustCompile(`\b(CS\d{4})\b`)},
	{Code, "clippy::", regexp.MustCompile(`\b(clippy::\w+)`)},
	{Code, "  ", regexp.MustCompile(`^\s+\d+:\d+\s+(?:error|warning)\s+.+?\s{2,}(@?[a-z][\w-]*(?:/[\w-]+)?)\s*$`)},
	{Code, "", regexp.MustCompile(`^\S+:\d+:\d+: ([A-Z]\d{3,4}) `)},
	// Symbols named by errors.
	{Symbol, "undefined", regexp.MustCompile(`undefined: (\w+)`)},
	{Symbol, "cannot find", regexp.MustCompile("cannot find (?:value|function|type|struct|trait|macro|module|crate|symbol) `(\\w+)`")},
	{Symbol, "symbol:", regexp.MustCompile(`symbol:\s+(?:variable|method|class|function) (\w+)`)},
	{Symbol, "'", regexp.MustCompile(`'(\w+)' (?:is not defined|is defined but never used|was not declared|is declared but its value is never read|has no attribute)`)},
	{Symbol, "undefined reference", regexp.MustCompile("undefined reference to [`'](\\w+)'")},
	{Symbol, "rror", regexp.MustCompile(`\b([A-Z]\w*(?:Error|Exception))\b`)},
	{Symbol, "xception", regexp.MustCompile(`\b([A-Z]\w*Exception)\b`)},
}

// Line returns the facts one line carries.
func Line(line string) []Fact {
	var out []Fact
	for _, p := range patterns {
		if p.hint != "" && !strings.Contains(line, p.hint) {
			continue
		}
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

// Add records the facts of a line.
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
