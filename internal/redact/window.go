package redact

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/freshctx/freshctx/internal/rx"
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
	return !ascii(line) && (holdsRune(line, "\u017f") || holdsRune(line, "\u212a"))
}

// ascii reports whether line is all ASCII, eight bytes at a time: most
// lines of a log are, and then need no search at all.
func ascii(line []byte) bool {
	for ; len(line) >= 8; line = line[8:] {
		if binary.LittleEndian.Uint64(line)&0x8080808080808080 != 0 {
			return false
		}
	}
	for _, c := range line {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// holdsRune is bytes.Contains for the encoding of one rune, searched by
// its first byte.
func holdsRune(line []byte, enc string) bool {
	for i := 0; ; {
		j := bytes.IndexByte(line[i:], enc[0])
		if j < 0 {
			return false
		}
		i += j
		if bytes.HasPrefix(line[i:], []byte(enc)) {
			return true
		}
		i++
	}
}

// windows returns the stretches reach gives around occurrences, in order,
// merged where they overlap unless separate (then only the same stretch
// twice is dropped); buf is reused.
//
// Where an expression starts with a byte before the name it matches, as
// the `KEY = value` rule's does, a match on a whole line takes that byte
// from the next: in `a_key="x"b_key="y"` the first match's value ends with
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
// Kelvin sign), after an optional quote and a rune that is not a name's;
// it ends with the value, which the gate guarantees follows `=` or `:`: a
// quoted string to its closing quote or a run of bytes up to a space or
// one of `,;&"'<>(){}[]`.
func assignmentReach(line []byte, s, e int) span {
	r := s
	for r > 0 && (isNameByte(line[r-1]) || line[r-1] >= 0x80) {
		r--
	}
	// then the optional quote and the rune before the name
	if r > 0 && (line[r-1] == '"' || line[r-1] == '\'') {
		r--
	}
	if r > 0 {
		_, n := utf8.DecodeLastRune(line[:r])
		r -= n
	}
	_, end := assignedValue(line, e)
	return span{r, end}
}

// assignedValue finds the value the `KEY = value` rule's expression would
// take after a name ending at e that the gate admitted (an optional quote,
// white space, `=` or `:`, white space): a quoted string to its closing
// quote, or a run of bytes up to white space or one of `,;&"'<>(){}[]`.
// It returns where the value starts and ends; an empty value (a quote
// never closed, the line's end) matches nothing.
func assignedValue(line []byte, e int) (start, end int) {
	i := e
	if i < len(line) && (line[i] == '"' || line[i] == '\'') {
		i++
	}
	i = skipSpace(line, i) + 1 // past the `=` or `:`
	i = skipSpace(line, i)
	if i >= len(line) {
		return len(line), len(line)
	}
	if q := line[i]; q == '"' || q == '\'' {
		if j := bytes.IndexByte(line[i+1:], q); j >= 0 {
			return i, i + 1 + j + 1
		}
		return i, i + 1 // no closing quote: no value here
	}
	j := i
	for j < len(line) && !endsAssignedValue(line[j]) {
		j++
	}
	return i, j
}

// isNameByte is a byte of the assignment rule's key name.
func isNameByte(c byte) bool { return rx.IsWordByte(c) || c == '.' || c == '-' }

func skipSpace(line []byte, i int) int {
	for i < len(line) && rx.IsSpace(line[i]) {
		i++
	}
	return i
}

func endsAssignedValue(c byte) bool {
	if rx.IsSpace(c) {
		return true
	}
	switch c {
	case ',', ';', '&', '"', '\'', '<', '>', '(', ')', '{', '}', '[', ']':
		return true
	}
	return false
}

// urlReach is the reach of the credentials-in-URL rule around a `://`:
// the scheme before it (letters, digits, `+.-`, from after a byte not a
// word's, so `\b` sees what it sees in the whole line), then the user up
// to the first `:`, the password up to the first `@`, and one more rune.
func urlReach(line []byte, s, e int) span {
	start := s
	for start > 0 && (isAlnum(line[start-1]) || strings.IndexByte("+.-", line[start-1]) >= 0) {
		start--
	}
	for start > 0 && rx.IsWordByte(line[start-1]) {
		start--
	}
	i := e
	for i < len(line) && !rx.IsSpace(line[i]) && strings.IndexByte(`:/@"'<>`, line[i]) < 0 {
		i++
	}
	if i >= len(line) || line[i] != ':' {
		return span{start, i}
	}
	i++
	for i < len(line) && !rx.IsSpace(line[i]) && strings.IndexByte(`@/"'<>`, line[i]) < 0 {
		i++
	}
	if i >= len(line) || line[i] != '@' {
		return span{start, i}
	}
	return span{start, i + 1 + utf8.UTFMax}
}

// flagReach is the reach of the `--password X` rule around a `-pass`-like
// hint (its dash the flag's last): the byte before the flag's dashes, the
// rest of the flag's name, `=` or white space, and the value, quoted to
// its closing quote or up to white space or a quote.
func flagReach(line []byte, s, e int) span {
	i := e
	for i < len(line) && (rx.IsWordByte(line[i]) || line[i] == '-') {
		i++
	}
	if i < len(line) && line[i] == '=' {
		i++
	} else {
		i = skipSpace(line, i)
	}
	if i < len(line) && (line[i] == '"' || line[i] == '\'') {
		if j := bytes.IndexByte(line[i+1:], line[i]); j >= 0 {
			return span{s - 2, i + 1 + j + 1}
		}
		return span{s - 2, i + 1}
	}
	for i < len(line) && !rx.IsSpace(line[i]) && line[i] != '"' && line[i] != '\'' {
		i++
	}
	return span{s - 2, i}
}

// headerReach is the reach of the authorization header rule around
// `authorization`: `proxy-` and the rest of a word before it (from after a
// byte not a word's, for `\b`), then the quote, white space and `:` or `=`
// the gate saw, an optional quote, and two runs of value bytes (a scheme
// such as `Bearer` and the credentials), each up to white space or one of
// `"',;`.
func headerReach(line []byte, s, e int) span {
	start := max(0, s-len("proxy-"))
	for start > 0 && rx.IsWordByte(line[start-1]) {
		start--
	}
	i := e
	if i < len(line) && (line[i] == '"' || line[i] == '\'') {
		i++
	}
	i = skipSpace(line, i) + 1 // past the `:` or `=`
	i = skipSpace(line, i)
	if i < len(line) && (line[i] == '"' || line[i] == '\'') {
		i++
	}
	for range 2 {
		for i < len(line) && !rx.IsSpace(line[i]) && strings.IndexByte(`"',;`, line[i]) < 0 {
			i++
		}
		i = skipSpace(line, i)
	}
	return span{start, min(i, len(line))}
}
