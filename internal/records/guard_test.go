package records

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/compress"
	"github.com/freshctx/freshctx/internal/refs"
)

// TestDigestPanicKeepsOutputAndStatus: a bug in the digest's compressor
// (here it panics on one line) costs neither the raw output, nor the exit
// status, nor the lines from there on, which the fallback digest keeps.
func TestDigestPanicKeepsOutputAndStatus(t *testing.T) {
	s, _ := newService(t)
	selectCompressor = func(argv []string, head []byte) compress.Factory {
		f := compress.Select(argv, head)
		inner := f.New
		f.New = func(o compress.Options) compress.Compressor { return panicsOnBoom{inner(o)} }
		return f
	}
	t.Cleanup(func() { selectCompressor = compress.Select })
	out := "first line\nboom here\nlast error: a.go:3: x\n"
	rec, err := s.Run(context.Background(), RunRequest{Argv: []string{"sh", "-c", "printf '" + out + "'; exit 3"}, Env: os.Environ()})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if *rec.ExitCode != 3 {
		t.Fatalf("exit = %d, want 3", *rec.ExitCode)
	}
	for _, want := range []string{"analysis failed", "keeps every line from there on", "boom here", "last error: a.go:3: x"} {
		if !strings.Contains(rec.Digest, want) {
			t.Errorf("digest lacks %q:\n%s", want, rec.Digest)
		}
	}
	if got := raw(t, s, rec.ID, Stdout); string(got) != out {
		t.Fatalf("raw = %q, want %q", got, out)
	}
}

// panicsOnBoom is a compressor with a bug: it panics on a line holding
// "boom".
type panicsOnBoom struct{ compress.Compressor }

func (p panicsOnBoom) Line(text string) {
	if strings.Contains(text, "boom") {
		panic("compressor: boom")
	}
	p.Compressor.Line(text)
}

// panicOnBoomRefs makes the reference finder panic on a line holding
// "boom" for the rest of the test.
func panicOnBoomRefs(t *testing.T) {
	lineRefs = func(line string) []refs.Ref {
		if strings.Contains(line, "boom") {
			panic("refs: boom")
		}
		return refs.Line(line)
	}
	t.Cleanup(func() { lineRefs = refs.Line })
}

// TestScanPanicCostsOnlyThatLine: a panic while finding one line's
// references costs that line's references and facts, said at the top of the
// digest; the other lines' references are kept and the digest is the
// chosen compressor's, not the fallback.
func TestScanPanicCostsOnlyThatLine(t *testing.T) {
	s, r := newService(t)
	for _, f := range []string{"a.go", "b.go", "c.go"} {
		r.Write(f, "package x\n")
	}
	panicOnBoomRefs(t)
	out := "a.go:1: first\nboom b.go:2: here\nc.go:3: last\n"
	rec, err := s.Run(context.Background(), RunRequest{Argv: []string{"sh", "-c", "printf '" + out + "'"}, Env: os.Environ()})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !strings.Contains(rec.Digest, "references and facts of 1 line(s) are not kept") || !strings.Contains(rec.Digest, "refs: boom") {
		t.Errorf("digest does not say what the panic cost:\n%s", rec.Digest)
	}
	if strings.Contains(rec.Digest, "keeps every line from there on") {
		t.Errorf("a scan panic switched the digest to the fallback:\n%s", rec.Digest)
	}
	var paths []string
	for _, f := range rec.Files {
		paths = append(paths, f.Path)
	}
	if got := strings.Join(paths, " "); got != "a.go c.go" {
		t.Errorf("files = %q, want a.go c.go", got)
	}
}
