package compress

import (
	"github.com/freshctx/freshctx/internal/rx"
	"strings"
)

// lineMatch is a line test that stays cheap on the many lines it rejects:
// an anchored regexp (tried at the start of the line only) or-ed with
// patterns that may match anywhere, each tried only when the line contains
// its literal hint.
type lineMatch struct {
	anchored *rx.Regexp
	anywhere []hinted
}

type hinted struct {
	hint string
	re   *rx.Regexp // nil: the hint alone decides, or test
	// test stands for an expression where running it costs too much on
	// lines that hold the hint (pytest -v's every passing test).
	test func(line string) bool
}

// match builds a lineMatch from an anchored pattern ("" for none) and
// hinted patterns given as hint, pattern pairs (an empty pattern means the
// hint is enough).
func match(anchored string, pairs ...string) *lineMatch {
	m := &lineMatch{}
	if anchored != "" {
		m.anchored = rx.MustCompile(anchored)
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		h := hinted{hint: pairs[i]}
		if pairs[i+1] != "" {
			h.re = rx.MustCompile(pairs[i+1])
		}
		m.anywhere = append(m.anywhere, h)
	}
	return m
}

// or adds a pattern that may match anywhere, given as a function: a line
// holding hint matches when test says so.
func (m *lineMatch) or(hint string, test func(line string) bool) *lineMatch {
	m.anywhere = append(m.anywhere, hinted{hint: hint, test: test})
	return m
}

// afterColons is the test of `::.*` + word + `\b`: word (which starts
// with a non-word byte and ends with a word byte) after the line's first
// "::", and no word byte right after it.
func afterColons(word string) func(string) bool {
	return func(line string) bool {
		i := strings.Index(line, "::")
		if i < 0 {
			return false
		}
		for rest := line[i+2:]; ; {
			j := strings.Index(rest, word)
			if j < 0 {
				return false
			}
			if end := j + len(word); end == len(rest) || !wordByte[rest[end]] {
				return true
			}
			rest = rest[j+1:]
		}
	}
}

// prefixSet tells whether a text starts with one of its words, looking only
// at the words that share its first byte.
type prefixSet map[byte][]string

func prefixes(words ...string) prefixSet {
	ps := prefixSet{}
	for _, w := range words {
		ps[w[0]] = append(ps[w[0]], w)
	}
	return ps
}

func (ps prefixSet) of(s string) bool {
	if s == "" {
		return false
	}
	for _, w := range ps[s[0]] {
		if strings.HasPrefix(s, w) {
			return true
		}
	}
	return false
}

// MatchString reports whether the line matches.
func (m *lineMatch) MatchString(line string) bool {
	if m.anchored != nil && m.anchored.MatchString(line) {
		return true
	}
	for i := range m.anywhere {
		if h := &m.anywhere[i]; strings.Contains(line, h.hint) && h.matches(line) {
			return true
		}
	}
	return false
}

// matches is the pattern's test of a line that holds its hint.
func (h *hinted) matches(line string) bool {
	if h.test != nil {
		return h.test(line)
	}
	return h.re == nil || h.re.MatchString(line)
}
