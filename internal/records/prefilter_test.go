package records

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/compress"
	"github.com/freshctx/freshctx/internal/rx"
)

// TestPrefiltersAdmitEveryMatch runs every expression of the analysis (the
// compressors', references', facts' and redaction's: all made through rx)
// over every line of the real outputs the project keeps, as they come,
// cleaned and without their indent: the prefilters in front of the
// expressions never turn away a line the expression matches.
func TestPrefiltersAdmitEveryMatch(t *testing.T) {
	files, err := filepath.Glob("../compress/testdata/corpus/*.out")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	files = append(files, "../redact/testdata/go-test-v.log")
	var lines []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			c := compress.Clean(l)
			lines = append(lines, l, c, strings.TrimSpace(c))
		}
	}
	if err := rx.CheckPrefilter(lines); err != nil {
		t.Fatal(err)
	}
}
