package records

import (
	"os"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/compress"
	"github.com/freshctx/freshctx/internal/corpus"
	"github.com/freshctx/freshctx/internal/rx"
	"github.com/freshctx/freshctx/internal/testrace"
)

// TestPrefiltersAdmitEveryMatch runs every expression of the analysis (the
// compressors', references', facts' and redaction's: all made through rx)
// over every line of the real outputs the project keeps, as they come,
// cleaned and without their indent: the prefilters in front of the
// expressions never turn away a line the expression matches, and where
// they answer MatchString themselves they answer as the matcher does.
func TestPrefiltersAdmitEveryMatch(t *testing.T) {
	testrace.Skip(t, "tries every prefilter on a corpus on one goroutine")
	entries, err := corpus.Load("../compress/testdata/corpus")
	if err != nil || len(entries) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	log, err := os.ReadFile("../redact/testdata/go-test-v.log")
	if err != nil {
		t.Fatal(err)
	}
	outputs := []string{string(log)}
	for _, e := range entries {
		outputs = append(outputs, e.Out)
	}
	var lines []string
	for _, out := range outputs {
		for _, l := range strings.Split(out, "\n") {
			c := compress.Clean(l)
			lines = append(lines, l, c, strings.TrimSpace(c))
		}
	}
	if testing.Short() {
		// -short (the race detector's run in CI) checks every eighth line,
		// always the same ones: the whole set runs without it.
		var some []string
		for i := 0; i < len(lines); i += 8 {
			some = append(some, lines[i])
		}
		lines = some
	}
	if err := rx.CheckPrefilter(lines); err != nil {
		t.Fatal(err)
	}
}
