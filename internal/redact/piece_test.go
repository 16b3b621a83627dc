package redact

import (
	"bytes"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// pieces redacts line as the capture does a line too long to wait for:
// whenever what is pending reaches limit bytes it is cut where SafeCut
// says and redacted with Piece, the rest at the end.
func pieces(line []byte, writes []int, limit int) []byte {
	var r Redactor
	var out, pending, before []byte
	for len(line) > 0 {
		n := len(line)
		if len(writes) > 0 {
			n, writes = min(n, max(1, writes[0])), writes[1:]
		}
		pending, line = append(pending, line[:n]...), line[n:]
		if len(pending) < limit {
			continue
		}
		cut := SafeCut(pending)
		out = append(out, r.Piece(before, pending[:cut], pending[cut:])...)
		before = append(before, pending[:cut]...)
		before = before[max(0, len(before)-Context):]
		pending = append([]byte{}, pending[cut:]...)
	}
	return append(out, r.Piece(before, pending, nil)...)
}

// TestPiecesHideWhatTheLineHides: every secret of the corpus that
// redaction finds on a line is hidden, whole and in part, when the line
// comes in pieces cut anywhere near it.
func TestPiecesHideWhatTheLineHides(t *testing.T) {
	corpus := secretCorpus()
	filler := strings.Repeat("lorem ipsum, dolor/sit;amet ", 400)
	const limit = 8 << 10
	rapid.Check(t, func(t *rapid.T) {
		c := rapid.SampledFrom(corpus).Draw(t, "case")
		if c.kind == KindPrivateKey || strings.Contains(c.line, "\n") {
			t.Skip("a block of lines, not one line")
		}
		if out, _ := String(c.line); strings.Contains(out, c.secret) {
			t.Skip("not found on the line either") // TestSecretCorpus says which
		}
		at := rapid.IntRange(limit-len(c.line)-64, limit+64).Draw(t, "at")
		line := []byte(filler[:max(0, at)] + " " + c.line + " " + filler[:limit])
		writes := rapid.SliceOfN(rapid.IntRange(1, 3*limit), 0, 8).Draw(t, "writes")
		got := pieces(line, writes, limit)
		for _, part := range []string{c.secret, c.secret[:len(c.secret)/2], c.secret[len(c.secret)/2:]} {
			if len(part) >= 8 && bytes.Contains(got, []byte(part)) {
				t.Fatalf("%s: %q survived the cut:\n%s", c.kind, part, got[max(0, at-100):min(len(got), at+len(c.line)+100)])
			}
		}
	})
}

// TestPiecesAreTheLine: a line comes out of its pieces as it comes out
// whole, wherever it was cut.
func TestPiecesAreTheLine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		words := rapid.SliceOfN(rapid.SampledFrom([]string{"src/app.go:12:5", "lorem", " ", "\t", ",", "'", `"`, "x=1", "-----", "ok/path", "password: ", "Summer.Fun2024", "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB", "token"}), 1, 4000).Draw(t, "words")
		line := []byte(strings.Join(words, ""))
		writes := rapid.SliceOfN(rapid.IntRange(1, 4096), 0, 8).Draw(t, "writes")
		want, _ := String(string(line))
		if got := pieces(line, writes, 1<<10); string(got) != want {
			t.Fatalf("in pieces:\n%q\nwhole:\n%q", got, want)
		}
	})
}
