package compress

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/freshctx/freshctx/internal/refs"
)

// Class is what a line says.
type Class int

// Line classes, from no opinion to most important.
const (
	// Auto is a Rules.Judge saying "classify it the generic way".
	Auto Class = iota
	// Noise is never kept, not even as context (progress, passing tests).
	Noise
	// Detail is kept when the output is short enough to keep whole and is
	// noise otherwise: frames of libraries, the code under them.
	Detail
	// Marker stands for lines a compressor left out on purpose.
	Marker
	Plain
	Warning
	Ref
	SummaryLine
	Error
)

var (
	errorWords   = regexp.MustCompile(`(?i)\b(error|errors|fail|failed|failure|failures|failing|panic|panicked|fatal|exception|traceback|segmentation fault|undefined reference|assertion|cannot|could not|not found|denied|aborted|FAIL)\b|^E\s|✗|✖|^[×✕]\s`)
	warningWords = regexp.MustCompile(`(?i)\b(warning|warn|deprecated)\b`)
	summaryLine  = regexp.MustCompile(`(?i)^(ok\s+\S+\s+(\(cached\)|[\d.]+m?s\b|\[no test files\])|PASS$|FAIL$|FAIL\s+\S+|---\s*(PASS|FAIL)|=+ .*(passed|failed|error).* =+$|test result:|tests?:\s+\d+|Tests run:|Ran \d+ tests?|BUILD (SUCCESS|FAILURE)|\d+ (passed|failed|passing|failing|tests?|examples?|problems?|errors?|warnings?)\b|Finished|Done in|Total:)`)
	noError      = regexp.MustCompile(`(?i)\b(0 errors?|no errors?|0 failed|0 failures?|error[-_ ]?free|without errors?)\b`)
)

// Keywords that must occur (lowercased) before a regexp is worth running:
// most lines of a long log carry none of them.
var (
	errorHints   = newWordSet("error", "fail", "panic", "fatal", "exception", "traceback", "segmentation", "undefined reference", "assert", "cannot", "could not", "not found", "denied", "abort", "✗", "✖", "×", "✕")
	warningHints = newWordSet("warn", "deprecat")
)

// classify says what a cleaned line carries. scratch is reused between
// calls to hold the lowercased line.
func classify(line string, scratch *[]byte) Class {
	t := strings.TrimSpace(line)
	if t == "" {
		return Plain
	}
	if chatter.MatchString(t) {
		return Noise
	}
	lower := toLower(t, scratch)
	if summaryLine.MatchString(t) { // anchored: only tried at the start
		return SummaryLine
	}
	if (errorHints.in(lower) || strings.HasPrefix(t, "E ")) && errorWords.MatchString(t) && !noError.MatchString(t) {
		return Error
	}
	if warningHints.in(lower) && warningWords.MatchString(t) {
		return Warning
	}
	if len(refs.Line(t)) > 0 {
		return Ref
	}
	return Plain
}

// wordSet finds whether any of its words occurs in a text in one pass:
// words are indexed by their first byte.
type wordSet [256][][]byte

func newWordSet(words ...string) *wordSet {
	var ws wordSet
	for _, w := range words {
		ws[w[0]] = append(ws[w[0]], []byte(w))
	}
	return &ws
}

func (ws *wordSet) in(s []byte) bool {
	for i, c := range s {
		for _, w := range ws[c] {
			if bytes.HasPrefix(s[i:], w) {
				return true
			}
		}
	}
	return false
}

// toLower lowercases ASCII letters into scratch: the keywords are ASCII,
// and this neither allocates per line nor consults Unicode tables.
func toLower(s string, scratch *[]byte) []byte {
	b := append((*scratch)[:0], s...)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	*scratch = b
	return b
}
