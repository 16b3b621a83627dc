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
	if i := strings.LastIndexByte(line, '\r'); i >= 0 {
		line = line[i+1:]
	}
	return strings.TrimRight(termsafe.String(line), " \t")
}
