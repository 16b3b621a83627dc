package compress

import (
	"regexp"
	"strings"

	"github.com/freshctx/freshctx/internal/refs"
)

// Class is what a line says.
type Class int

// Line classes.
const (
	Plain Class = iota
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

// classify says what a cleaned line carries.
func classify(line string) Class {
	t := strings.TrimSpace(line)
	if t == "" {
		return Plain
	}
	if summaryLine.MatchString(t) {
		return SummaryLine
	}
	if errorWords.MatchString(t) && !noError.MatchString(t) {
		return Error
	}
	if warningWords.MatchString(t) {
		return Warning
	}
	if len(refs.Line(t)) > 0 {
		return Ref
	}
	return Plain
}
