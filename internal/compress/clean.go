package compress

import (
	"strings"

	"github.com/freshctx/freshctx/internal/termsafe"
)

// Clean returns what a terminal would have shown of an output line, and
// nothing that could act on one: carriage-return progress keeps only the
// text after the last '\r', every escape sequence and control character is
// removed (see termsafe), and trailing spaces go.
func Clean(line string) string {
	line = strings.TrimSuffix(line, "\r")
	if strings.IndexByte(line, '\r') >= 0 { // searched forwards: LastIndexByte reads a byte at a time
		line = line[strings.LastIndexByte(line, '\r')+1:]
	}
	return trimBlankRight(termsafe.String(line))
}

// CleanSafe is Clean of a line termsafe.Safe holds safe, which has no
// control character (no carriage return) for Clean to act on: its
// trailing blanks go, and that is all. A caller that has asked Safe
// already spares the line a second reading.
func CleanSafe(line string) string { return trimBlankRight(line) }

// trimBlankRight is strings.TrimRight(s, " \t") without building the cut
// set at every line.
func trimBlankRight(s string) string {
	i := len(s)
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	return s[:i]
}
