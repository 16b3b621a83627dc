// Package testdiff applies unified diffs strictly, for tests that check a
// diff answer against what was shown before it.
package testdiff

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@`)

// Apply applies a unified diff with context to before, checking every
// context and deleted line against it: an oracle for answers that claim a
// diff turns what a model was shown into a file.
func Apply(diff, before string) (string, error) {
	old := strings.SplitAfter(before, "\n")
	if old[len(old)-1] == "" {
		old = old[:len(old)-1]
	}
	var out []string
	next := 0 // index into old
	lines := strings.SplitAfter(diff, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case l == "" || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ "):
		case strings.HasPrefix(l, "@@"):
			m := hunkHeader.FindStringSubmatch(l)
			if m == nil {
				return "", fmt.Errorf("bad hunk header %q", l)
			}
			from, _ := strconv.Atoi(m[1])
			if m[2] == "0" {
				from++ // an empty "from" range names the line before
			}
			for ; next < from-1; next++ {
				out = append(out, old[next])
			}
		case strings.HasPrefix(l, `\ No newline`):
			if n := len(out); n > 0 {
				out[n-1] = strings.TrimSuffix(out[n-1], "\n")
			}
		case l[0] == ' ' || l[0] == '-':
			body := l[1:]
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], `\ No newline`) {
				body = strings.TrimSuffix(body, "\n")
				i++
			}
			if next >= len(old) || old[next] != body {
				return "", fmt.Errorf("line %d does not match the diff's %q", next+1, l)
			}
			if l[0] == ' ' {
				out = append(out, body)
			}
			next++
		case l[0] == '+':
			out = append(out, l[1:])
		default:
			return "", fmt.Errorf("unexpected diff line %q", l)
		}
	}
	out = append(out, old[next:]...)
	return strings.Join(out, ""), nil
}
