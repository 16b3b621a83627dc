package compress

import (
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
	Plain
	Warning
	Ref
	SummaryLine
	Error
)

var (
	errorWords   = regexp.MustCompile(`(?i)\b(error|errors|fail|failed|failure|failures|failing|panic|panicked|fatal|exception|traceback|segmentation fault|undefined reference|assertion|cannot|could not|not found|denied|aborted|FAIL)\b|^E\s|✗|✖`)
	warningWords = regexp.MustCompile(`(?i)\b(warning|warn|deprecated)\b`)
	summaryLine  = regexp.MustCompile(`(?i)^(ok\s+\S+|PASS$|FAIL$|FAIL\s+\S+|---\s*(PASS|FAIL)|=+ .*(passed|failed|error).* =+$|test result:|tests?:\s+\d+|Tests run:|Ran \d+ tests?|BUILD (SUCCESS|FAILURE)|\d+ (passed|failed|passing|failing|tests?|examples?|problems?|errors?|warnings?)\b|Finished|Done in|Total:)`)
	noError      = regexp.MustCompile(`(?i)\b(0 errors?|no errors?|0 failed|0 failures?|error[-_ ]?free|without errors?)\b`)
)

// Keywords that must occur (lowercased) before a regexp is worth running:
// most lines of a long log carry none of them.
var (
	errorHints   = []string{"error", "fail", "panic", "fatal", "exception", "traceback", "segmentation", "undefined reference", "assert", "cannot", "could not", "not found", "denied", "abort", "✗", "✖"}
	warningHints = []string{"warn", "deprecat"}
	summaryHints = []string{"ok", "pass", "fail", "test", "ran ", "build", "finish", "done", "total", "error", "warning", "problem", "example", "=", "-"}
)

// classify says what a cleaned line carries.
func classify(line string) Class {
	t := strings.TrimSpace(line)
	if t == "" {
		return Plain
	}
	lower := toLower(t)
	if hasAny(lower, summaryHints) && summaryLine.MatchString(t) {
		return SummaryLine
	}
	if (hasAny(lower, errorHints) || strings.HasPrefix(t, "E ")) && errorWords.MatchString(t) && !noError.MatchString(t) {
		return Error
	}
	if hasAny(lower, warningHints) && warningWords.MatchString(t) {
		return Warning
	}
	if len(refs.Line(t)) > 0 {
		return Ref
	}
	return Plain
}

func hasAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// toLower lowercases ASCII letters only: the keywords are ASCII and this
// avoids strings.ToLower's Unicode tables on every line.
func toLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
