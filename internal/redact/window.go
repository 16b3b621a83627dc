package redact

import (
	"bytes"
	"slices"
)

// A long line (a minified bundle, a JSON document on one line) holds many
// keyword occurrences that a gate admits, and running a rule's expression
// over all of it costs far more than over the stretches around them: Go's
// expressions run in time proportional to the text times the expression.
// A rule with a reach runs on those stretches only. A reach bounds every
// match its rule's expression can make around an admitted occurrence, so
// the stretches hold every match the whole line does, and each stretch
// ends where the expression sees the same text as in the whole line.

// windowFrom is the line length from which rules with a reach run on
// windows: shorter lines cost little either way. Tests set it to 0.
var windowFrom = 1 << 10

// reach gives the stretch of line that a match around the keyword
// occurrence line[s:e] can span.
type reach func(line []byte, s, e int) span

// hasFoldVariant reports whether line holds the long s or the Kelvin sign,
// which the expressions' case folding matches for `s` and `k` (in a
// keyword, a name, a value) and the gates and reaches, reading bytes, do
// not.
func hasFoldVariant(line []byte) bool {
	return bytes.Contains(line, []byte("\u017f")) || bytes.Contains(line, []byte("\u212a"))
}

// windows returns the stretches reach gives around occurrences, in order,
// merged where they overlap unless separate (then only the same stretch
// twice is dropped); buf is reused.
//
// Where an expression starts with a byte before the name it matches, as
// the `KEY = value` rule's does, a match on a whole line takes that byte
// from the next: in `a_key=x"b_key="y"` the first match's value ends with
// the quote that the second needs before its name. Such a rule runs on
// each occurrence's stretch separately, and finds every assignment.
func windows(line []byte, occ []span, r reach, separate bool, buf []span) []span {
	buf = buf[:0]
	for _, o := range occ {
		w := r(line, o.start, o.end)
		buf = append(buf, span{max(0, w.start), min(len(line), w.end)})
	}
	slices.SortFunc(buf, func(a, b span) int { return a.start - b.start })
	out := buf[:0]
	for _, w := range buf {
		if n := len(out); n > 0 && (w == out[n-1] || !separate && w.start < out[n-1].end) {
			out[n-1].end = max(out[n-1].end, w.end)
			continue
		}
		out = append(out, w)
	}
	return out
}

// leakReach is the reach of gitleaks' generic rules: span bytes before and
// after the keyword, and then on to a byte that ends their value (a quote,
// a backtick, a space or a semicolon) or the line's end: the unbounded
// base64 alternative of the generic rule's value cannot run past that
// byte, and where the expression's `$` matches at the stretch's end, in
// the whole line the byte there ends the same match.
func leakReach(span0 [2]int) reach {
	return func(line []byte, s, e int) span {
		return span{s - span0[0], endBeforeTerminator(line, e+span0[1])}
	}
}

func endsLeakValue(c byte) bool {
	switch c {
	case '`', '\'', '"', ' ', '\t', '\n', '\f', '\r', ';':
		return true
	}
	return false
}

// assignmentReach is the reach of the `KEY = value` rule. Its match starts
// with the name the keyword ends (the run of name bytes before it; bytes
// past ASCII count, as the expression's case folding matches `ſ` and the
// Kelvin sign), after an optional quote and a byte that is not a name's;
// it ends with the value, which the gate guarantees follows `=` or `:`: a
// quoted string to its closing quote or a run of bytes up to a space or
// one of `,;&"'<>(){}[]`.
func assignmentReach(line []byte, s, e int) span {
	r := s
	for r > 0 && (isNameByte(line[r-1]) || line[r-1] >= 0x80) {
		r--
	}
	i := e
	if i < len(line) && (line[i] == '"' || line[i] == '\'') {
		i++
	}
	i = skipSpace(line, i) + 1 // past the `=` or `:`
	i = skipSpace(line, i)
	if i >= len(line) {
		return span{r - 2, len(line)}
	}
	if q := line[i]; q == '"' || q == '\'' {
		if j := bytes.IndexByte(line[i+1:], q); j >= 0 {
			return span{r - 2, i + 1 + j + 1}
		}
		return span{r - 2, i + 1} // no closing quote: no value here
	}
	for i < len(line) && !endsAssignedValue(line[i]) {
		i++
	}
	return span{r - 2, i}
}

// isNameByte is a byte of the assignment rule's key name.
func isNameByte(c byte) bool { return isWord(c) || c == '.' || c == '-' }

// isSpace is the expressions' `\s`.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func skipSpace(line []byte, i int) int {
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	return i
}

func endsAssignedValue(c byte) bool {
	if isSpace(c) {
		return true
	}
	switch c {
	case ',', ';', '&', '"', '\'', '<', '>', '(', ')', '{', '}', '[', ']':
		return true
	}
	return false
}
