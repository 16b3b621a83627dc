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
	re   *rx.Regexp // nil: the hint alone decides
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
	for _, h := range m.anywhere {
		if strings.Contains(line, h.hint) && (h.re == nil || h.re.MatchString(line)) {
			return true
		}
	}
	return false
}
