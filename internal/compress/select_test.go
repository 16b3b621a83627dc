package compress

import (
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/facts"
	"github.com/freshctx/freshctx/internal/rx"
)

func TestSelectByCommandLineAndOutput(t *testing.T) {
	tests := []struct {
		argv []string
		head string
		want string
	}{
		{[]string{"go", "test", "./..."}, "", "go"},
		{[]string{"sh", "-c", "cd x && go vet ./..."}, "", "go"},
		{[]string{"make", "check"}, "=== RUN   TestA\n--- FAIL: TestA (0.00s)\n", "go"},
		{[]string{"cargo", "clippy"}, "", "rust"},
		{[]string{"/usr/bin/rustc", "a.rs"}, "", "rust"},
		{[]string{"npx", "tsc", "-p", "."}, "", "js"},
		{[]string{"node", "--test", "t/"}, "", "js"},
		{[]string{"./run-tests"}, "TAP version 13\n# Subtest: a\n", "js"},
		{[]string{"python3", "-m", "pytest", "-q"}, "", "python"},
		{[]string{"./ci"}, "============================= test session starts ==============================\n", "python"},
		{[]string{"mvn", "-B", "test"}, "", "java"},
		{[]string{"javac", "A.java"}, "", "java"},
		{[]string{"make", "-j4"}, "", "c"},
		{[]string{"./build"}, "util.c:5:17: error: expected ';'\n", "c"},
		{[]string{"ls", "-l"}, "total 0\n", "generic"},
	}
	for _, tt := range tests {
		if got := Select(tt.argv, []byte(tt.head)).Name; got != tt.want {
			t.Errorf("Select(%q, %q) = %s, want %s", tt.argv, tt.head, got, tt.want)
		}
	}
}

// TestNoFamilyClaimsAnEmptyOutput: Select skips an empty head, which is
// right only while no family's expression matches one.
func TestNoFamilyClaimsAnEmptyOutput(t *testing.T) {
	for _, f := range registry {
		if f.Match(nil, nil) || f.Match(nil, []byte{}) {
			t.Errorf("family %s claims an empty output", f.Name)
		}
	}
}

// TestCorpusTestsIntentKeepsFailingTests checks, for every corpus output,
// that the tests intent (and the errors intent) still name every failing
// test the output names, and are no larger than the summary (but for the
// note of what they left out).
func TestCorpusTestsIntentKeepsFailingTests(t *testing.T) {
	for _, e := range loadCorpus(t) {
		var names []string
		for _, l := range strings.Split(e.Out, "\n") {
			for _, f := range facts.Line(Clean(l)) {
				if f.Kind == facts.Test {
					names = append(names, f.Value)
				}
			}
		}
		_, summary := compressEntry(e, Summary)
		for _, in := range []Intent{Tests, Errors} {
			_, d := compressEntry(e, in)
			for _, n := range names {
				if !strings.Contains(d, Short(n)) {
					t.Errorf("%s, %s intent: failing test %q lost", e.Name, in, n)
				}
			}
			// A short output's summary is the output itself; the terse
			// intents may add their one "lines omitted" note to it.
			if len(d) > len(summary)+len("… [9999 lines omitted]\n") {
				t.Errorf("%s: %s digest (%d bytes) larger than summary (%d)", e.Name, in, len(d), len(summary))
			}
		}
	}
}

// Short is the last component of a test name, as facts.Short, or the name.
func Short(name string) string {
	if s := facts.Short(name); s != "" {
		return s
	}
	return name
}

// A side of a match that is empty is left alone: each expression compiles
// on its first use, and a run that printed nothing compiled every family's
// head expression to learn that none matches nothing. An expression that
// does not compile panics when it is used, so using one fails the test.
func TestMatchByLeavesAnEmptySideAlone(t *testing.T) {
	bad := rx.MustCompile(`(unclosed`)
	for _, c := range []struct {
		name      string
		cmd, head *rx.Regexp
		argv      []string
		out       []byte
		want      bool
	}{
		{"nothing at all", bad, bad, nil, nil, false},
		{"a command and no output", rx.MustCompile(`^go test`), bad, []string{"go", "test"}, nil, true},
		{"a command that is not the family's", rx.MustCompile(`^go test`), bad, []string{"true"}, nil, false},
		{"an output and no command", bad, rx.MustCompile(`^ok `), nil, []byte("ok  \tm\t0.1s\n"), true},
	} {
		if got := matchBy(c.cmd, c.head)(c.argv, c.out); got != c.want {
			t.Errorf("%s: matched %v, want %v", c.name, got, c.want)
		}
	}
}
