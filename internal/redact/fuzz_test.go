package redact

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzLine: any line is redacted without a panic; a line that holds no
// keyword comes back unchanged; a file reference appended to any line
// survives; redacting twice changes nothing more.
func FuzzLine(f *testing.F) {
	for _, c := range secretCorpus() {
		f.Add(c.line)
	}
	for _, l := range benignLines {
		f.Add(l)
	}
	f.Add("-----BEGIN PRIVATE KEY----- abc -----END PRIVATE KEY-----")
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsRune(line, '\n') {
			return
		}
		var r Redactor
		out := r.Line([]byte(line))
		if !bytes.Contains([]byte(line), []byte("-----BEGIN")) && rules().keywords != nil {
			var s scratch
			if s.hits(rules(), []byte(line), true) == nil && string(out) != line {
				t.Fatalf("no keyword, yet changed: %q -> %q", line, out)
			}
		}
		const ref = " pkg/secret_token.go:12:5"
		var r2 Redactor
		if got := r2.Line([]byte(line + ref)); got != nil && !bytes.HasSuffix(got, []byte(ref)) && !r2.InKey() {
			t.Fatalf("file reference lost: %q -> %q", line+ref, got)
		}
		if out != nil && !r.InKey() {
			var again Redactor
			if twice := again.Line(out); !bytes.Equal(twice, out) {
				t.Fatalf("not stable: %q -> %q -> %q", line, out, twice)
			}
		}
	})
}
