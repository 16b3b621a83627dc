package compress

import (
	"fmt"
	"strings"
)

// blocks collapses failures that repeat an earlier one: the same kept lines
// but for the values in them (parametrized copies of one test, one cause
// hit by many tests). The first is kept whole; each later copy becomes its
// name on one line that points at the first.
type blocks struct {
	name  string // the open block's name; "" when none is open
	start int    // where its lines begin in the digest
	first map[string]string
	// marker is the digest index of the last "same failure" line, and the
	// block it points at, so that consecutive copies share one line.
	marker      int
	markerOf    string
	markerNames []string
}

func (b *blocks) open(name string, at int) {
	b.name, b.start = name, at
}

// close ends the open block: if its lines repeat an earlier block's they
// are replaced by a line naming it.
func (b *blocks) close(out []Kept) []Kept {
	name := b.name
	b.name = ""
	if name == "" || b.start >= len(out) {
		return out
	}
	body := out[b.start+1:]
	if len(body) == 0 {
		return out
	}
	sig := blockSignature(body)
	if b.first == nil {
		b.first = map[string]string{}
	}
	orig, seen := b.first[sig]
	if !seen {
		b.first[sig] = name
		return out
	}
	out = out[:b.start]
	if b.markerOf == orig && b.marker == len(out)-1 {
		b.markerNames = append(b.markerNames, name)
		out[b.marker].Text = sameFailure(b.markerNames, orig)
		return out
	}
	b.marker, b.markerOf, b.markerNames = len(out), orig, []string{name}
	return append(out, Kept{Text: sameFailure(b.markerNames, orig), Prio: PrioSummary})
}

func sameFailure(names []string, orig string) string {
	return fmt.Sprintf("… %s: same failure as %s above, with other values", strings.Join(names, ", "), orig)
}

// blockSignature is a block's kept text with quoted strings and numbers
// blanked (a file:line keeps its number: another line is another failure).
func blockSignature(lines []Kept) string {
	var b strings.Builder
	for _, l := range lines {
		if l.Prio == PrioMarker {
			continue
		}
		blankValues(&b, l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

func blankValues(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			if j := strings.IndexByte(s[i+1:], c); j >= 0 {
				b.WriteString("Q")
				i += j + 1
				continue
			}
		case c >= '0' && c <= '9' && i > 0 && s[i-1] == ':':
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				b.WriteByte(s[i])
				i++
			}
			i--
			continue
		case c >= '0' && c <= '9':
			for i+1 < len(s) && (s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '.') {
				i++
			}
			b.WriteByte('N')
			continue
		}
		b.WriteByte(c)
	}
}
