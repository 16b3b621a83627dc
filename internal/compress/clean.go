package compress

import (
	"regexp"
	"strings"
)

var ansi = regexp.MustCompile(`\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])`)

// Clean removes ANSI escape sequences and carriage-return progress (only
// the text after the last '\r' is what a terminal would show) and trailing
// spaces.
func Clean(line string) string {
	line = strings.TrimSuffix(line, "\r")
	if i := strings.LastIndexByte(line, '\r'); i >= 0 {
		line = line[i+1:]
	}
	if strings.IndexByte(line, 0x1b) >= 0 {
		line = ansi.ReplaceAllString(line, "")
	}
	return strings.TrimRight(line, " \t")
}
