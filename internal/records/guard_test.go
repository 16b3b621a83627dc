package records

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/refs"
)

// TestAnalysisPanicKeepsOutputAndStatus: a bug in reading the output (here
// the reference finder panics on one line) costs neither the raw output,
// nor the exit status, nor the lines after it in the digest.
func TestAnalysisPanicKeepsOutputAndStatus(t *testing.T) {
	s, _ := newService(t)
	lineRefs = func(line string) []refs.Ref {
		if strings.Contains(line, "boom") {
			panic("refs: boom")
		}
		return refs.Line(line)
	}
	t.Cleanup(func() { lineRefs = refs.Line })
	out := "first line\nboom here\nlast error: a.go:3: x\n"
	rec, err := s.Run(context.Background(), RunRequest{Argv: []string{"sh", "-c", "printf '" + out + "'; exit 3"}, Env: os.Environ()})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if *rec.ExitCode != 3 {
		t.Fatalf("exit = %d, want 3", *rec.ExitCode)
	}
	for _, want := range []string{"analysis failed", "boom here", "last error: a.go:3: x"} {
		if !strings.Contains(rec.Digest, want) {
			t.Errorf("digest lacks %q:\n%s", want, rec.Digest)
		}
	}
	if got := raw(t, s, rec.ID, Stdout); string(got) != out {
		t.Fatalf("raw = %q, want %q", got, out)
	}
}
