package compress

import (
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/facts"
	"github.com/freshctx/freshctx/internal/rx"
	"pgregory.net/rapid"
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
// head expression to learn that none matches nothing. A command line
// holding none of the family's words is turned away before its
// expression. An expression that does not compile panics when it is used,
// so using one fails the test.
func TestMatchByLeavesAnEmptySideAlone(t *testing.T) {
	bad := rx.MustCompile(`(unclosed`)
	for _, c := range []struct {
		name string
		cmd  commandLine
		head *rx.Regexp
		argv []string
		out  []byte
		want bool
	}{
		{"nothing at all", command(`(unclosed`, ""), bad, nil, nil, false},
		{"a command and no output", command(`^go test`, "go "), bad, []string{"go", "test"}, nil, true},
		{"a command that is not the family's", command(`^go test`, "go "), bad, []string{"go", "vet"}, nil, false},
		{"a command without the family's words", command(`(unclosed`, "go "), bad, []string{"true"}, nil, false},
		{"an output and no command", command(`(unclosed`, ""), rx.MustCompile(`^ok `), nil, []byte("ok  \tm\t0.1s\n"), true},
	} {
		if got := matchBy(c.cmd, c.head)(c.argv, c.out); got != c.want {
			t.Errorf("%s: matched %v, want %v", c.name, got, c.want)
		}
	}
}

// familyCommands are the families' command lines, by name.
var familyCommands = map[string]commandLine{
	"c": cCmd, "go": goCmd, "java": javaCmd, "js": jsCmd, "python": pyCmd, "rust": rustCmd,
}

// TestCommandWordsHoldEveryMatch: every command line a family's expression
// matches holds one of its words, so the words never turn away a line the
// expression would take; lines are drawn from the words, their parts and
// what stands around them in real command lines.
func TestCommandWordsHoldEveryMatch(t *testing.T) {
	pieces := []string{" ", " ", "/", "/usr/bin/", "./...", "-m", " -m ", "-q", "-v", "x", "1", "3.12", ".",
		"go", "go ", "test", "build", "vet", "run", "install", "gcc", "g++", "cc", "c++", "clang", "make", "gmake",
		"cmake", "ninja", "javac", "java", "mvn", "mvnw", "gradle", "gradlew", "tsc", "eslint", "jest", "vitest",
		"mocha", "ava", "npx", "pnpm", "yarn", "npm", "run ", "node", "--test", "pytest", "py", ".test", "py.test",
		"tox", "nox", "python", "python3", "unittest", "cargo", "rustc", "cargo-clippy", "clippy", "\t", "sh -c "}
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom(pieces), 1, 8).Draw(t, "parts")
		line := strings.Join(parts, "")
		for name, c := range familyCommands {
			if want := c.re.MatchString(line); c.match(line) != want {
				t.Fatalf("%s: %q: the words say %v, the expression %v", name, line, !want, want)
			}
		}
	})
	for _, line := range []string{"go test ./...", "gcc -c x.c", "/usr/bin/clang++ x.cc", "make -j4", "mvn -q test",
		"npx vitest run", "node --test", "npm run test", "python3 -m pytest -x", "py.test", "cargo test", "rustc x.rs"} {
		matched := 0
		for _, c := range familyCommands {
			if c.match(line) {
				matched++
			}
		}
		if matched != 1 {
			t.Errorf("%q: %d families' command lines, want 1", line, matched)
		}
	}
}
