package redact

import (
	"regexp"
	"slices"
	"sync"

	"github.com/freshctx/freshctx/internal/rx"
)

// The secret-assignment rule's expression, in two parts: what precedes a
// match's name (the line's start or a byte no name holds), and the rest.
const (
	assignLead = `(?:^|[^\w.\-/])`
	assignRest = `["']?([a-z0-9_.-]*?(password|passwd|passphrase|pass|pwd|secret|token|apikey|key|credentials|credential))["']?\s*(?:=|:)\s*("[^"]*"|'[^']*'|[^\s,;&"'<>(){}\[\]]+)`
)

// assignExprs are the rule's expression, and the same anchored, for text
// in lower case: at the start of the text, and at a later byte, where the
// lead can only be that byte. (The expression's own text is lower case.)
var assignExprs = sync.OnceValue(func() [3]*regexp.Regexp {
	return [3]*regexp.Regexp{regexp.MustCompile(`(?i)` + assignLead + assignRest),
		regexp.MustCompile(`^` + assignLead + assignRest), regexp.MustCompile(`^[^\w.\-/]` + assignRest)}
})

// assignMatches is what the rule's expression finds in b, all of it, found
// by trying the expression only where a match can start (assignStarts)
// rather than at every byte: unanchored, Go's matcher walks its program
// from each of them, 14 µs for a line of 60 bytes that holds `token=`,
// forty times an ordinary line's redaction. Matches are tried left to
// right, each from the end of the one before, as FindAllSubmatchIndex
// does, so each is the leftmost, on the text in lower case, which in ASCII
// is matching ignoring case; TestAssignMatchesAreTheExpressions holds the
// two to the same answer. Text holding a byte past ASCII, where case
// folding matches `ſ` for s and `K` for k, goes to the expression.
func assignMatches(b []byte) [][]int {
	res := assignExprs()
	if !ascii(b) {
		return res[0].FindAllSubmatchIndex(b, -1)
	}
	atStart, after := res[1], res[2]
	// In ASCII text, matching ignoring case is matching the text in lower
	// case, without the matcher folding every rune it compares.
	low := make([]byte, len(b))
	for i, c := range b {
		low[i] = rx.Lower[c]
	}
	var out [][]int
	end := 0
	for _, p := range assignStarts(b) {
		if p < end {
			continue
		}
		re := after
		if p == 0 {
			re = atStart
		}
		loc := re.FindSubmatchIndex(low[p:])
		if loc == nil {
			continue
		}
		for i := range loc {
			if loc[i] >= 0 {
				loc[i] += p
			}
		}
		out = append(out, loc)
		end = loc[1]
	}
	return out
}

// assignStarts are where a match of the rule can start in b, ascending. A
// match's name and key word are one run of name bytes ([A-Za-z0-9_.-]):
// the run ends with the key word, as the byte after the key word cannot be
// a name's (a quote, white space, `=` or `:`), and those bytes follow it.
// Before the run stands a quote or the lead (a byte outside the run's, or
// the start): so a match starts one or two bytes before such a run.
func assignStarts(b []byte) []int {
	var starts []int
	for i := 0; i < len(b); {
		if !isNameByte(b[i]) {
			i++
			continue
		}
		j := i
		for j < len(b) && isNameByte(b[j]) {
			j++
		}
		if endsWithKeyWord(b[i:j]) && separatorAfter(b, j) {
			starts = append(starts, max(i-2, 0), max(i-1, 0))
		}
		i = j
	}
	return slices.Compact(starts)
}

// assignWords are the rule's key words.
var assignWords = [][]byte{[]byte("password"), []byte("passwd"), []byte("passphrase"), []byte("pass"), []byte("pwd"),
	[]byte("secret"), []byte("token"), []byte("apikey"), []byte("key"), []byte("credentials"), []byte("credential")}

// endsWithKeyWord reports whether run ends with one of the rule's key
// words, ignoring ASCII case.
func endsWithKeyWord(run []byte) bool {
	for _, w := range assignWords {
		if len(run) >= len(w) && equalFold(run[len(run)-len(w):], w) {
			return true
		}
	}
	return false
}

// separatorAfter reports whether b from i holds what the rule's
// expression reads after a key word: a quote or not, white space, then
// `=` or `:`.
func separatorAfter(b []byte, i int) bool {
	if i < len(b) && (b[i] == '"' || b[i] == '\'') {
		i++
	}
	for i < len(b) && rx.IsSpace(b[i]) { // the expressions' \s
		i++
	}
	return i < len(b) && (b[i] == '=' || b[i] == ':')
}
