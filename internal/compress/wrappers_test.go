package compress

import (
	"fmt"
	"strings"
	"testing"
)

// run digests text with the compressor of a family, as run does.
func run(f Factory, in Intent, root, text string) string {
	c := f.New(Options{Intent: in, Root: root})
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		c.Line(l)
	}
	return Render(c.Finish())
}

func TestDigestRules(t *testing.T) {
	var padding strings.Builder
	for i := range 30 {
		fmt.Fprintf(&padding, "=== RUN   TestPad%d\n--- PASS: TestPad%d (0.00s)\n", i, i)
	}
	var steps strings.Builder
	for i := range 300 {
		fmt.Fprintf(&steps, "ok step %d\n", i)
	}
	var deep strings.Builder
	deep.WriteString("Traceback (most recent call last):\n")
	for i := range 12 {
		fmt.Fprintf(&deep, "  File \"/w/app.py\", line %d, in f%d\n    f%d()\n", 10+i, i, i+1)
	}
	deep.WriteString("  File \"/usr/lib/python3.11/json/decoder.py\", line 353, in raw_decode\n    obj, end = self.scan_once(s, idx)\n")
	deep.WriteString("ValueError: bad\n")
	for i := range 10 {
		fmt.Fprintf(&deep, "later line %d\n", i)
	}
	tests := []struct {
		name       string
		f          Factory
		in         Intent
		text       string
		must, not_ []string
	}{
		{"go -v: a passing test's logs go", Go, Summary,
			"=== RUN   TestA\n    a_test.go:3: called: \"x\"\n--- PASS: TestA (0.00s)\n" + padding.String() +
				"=== RUN   TestB\n    b_test.go:9: want 1, got 2\n--- FAIL: TestB (0.00s)\nFAIL\tex.com/p\t0.1s\n",
			[]string{"--- FAIL: TestB (0.00s)\n    b_test.go:9: want 1, got 2"}, []string{"called", "a_test.go"}},
		{"go -v raw: every line", Go, Raw,
			"=== RUN   TestA\n    a_test.go:3: called: \"x\"\n--- PASS: TestA (0.00s)\n" + padding.String(),
			[]string{"a_test.go:3: called: \"x\""}, nil},
		{"go -v: a failing test's message follows its header", Go, Errors,
			padding.String() + "=== RUN   TestB\n    b_test.go:9: want 1\n--- FAIL: TestB (0.00s)\n",
			[]string{"--- FAIL: TestB (0.00s)\n    b_test.go:9: want 1"}, nil},
		{"go -v: a test without a result keeps its lines", Go, Summary,
			padding.String() + "=== RUN   TestSlow\n    slow_test.go:4: waiting\npanic: test timed out after 1s\nFAIL\tex.com/p\t1.0s\n",
			[]string{"=== RUN   TestSlow (no result)\n    slow_test.go:4: waiting", "panic: test timed out"}, nil},
		{"go -v: subtests", Go, Summary,
			padding.String() + "=== RUN   TestA\n=== RUN   TestA/one\n    a_test.go:5: one failed\n=== RUN   TestA/two\n    a_test.go:5: two ok log\n" +
				"--- FAIL: TestA (0.00s)\n    --- FAIL: TestA/one (0.00s)\n    --- PASS: TestA/two (0.00s)\n",
			[]string{"    --- FAIL: TestA/one (0.00s)\n    a_test.go:5: one failed"}, []string{"two ok log"}},
		{"generic: ok lines are not summaries", Generic, Summary,
			steps.String() + "error: disk full\n", []string{"error: disk full"}, []string{"ok step 150"}},
		{"blank repeats carry no count", Generic, Summary, "a\n\n\n\nb\n", []string{"a\n\nb"}, []string{"[×"}},
		{"python: the innermost frames stay", Python, Summary, deep.String(),
			[]string{"line 10, in f0", "line 21, in f11", "line 20, in f10", "ValueError: bad", "frames omitted"},
			[]string{"line 15, in f5", "decoder.py"}},
		{"python: short traceback kept whole", Python, Summary,
			"Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n  File \"/usr/lib/python3.11/json/__init__.py\", line 346, in loads\n    return x\nValueError: bad\n",
			[]string{"File \"<string>\", line 1", "json/__init__.py\", line 346"}, nil},
		{"one line omitted", Generic, Summary, steps.String()[:len("ok step 0\n")] + strings.Repeat("x\n", 0) + steps.String(),
			nil, []string{"[1 lines omitted]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := run(tt.f, tt.in, "/w", tt.text)
			for _, m := range tt.must {
				if !strings.Contains(d, m) {
					t.Errorf("lost %q", m)
				}
			}
			for _, m := range tt.not_ {
				if strings.Contains(d, m) {
					t.Errorf("kept %q", m)
				}
			}
			if t.Failed() {
				t.Logf("digest:\n%s", d)
			}
		})
	}
}

func TestBlankValues(t *testing.T) {
	a, b := &strings.Builder{}, &strings.Builder{}
	blankValues(a, `E  KeyError: 'EU' at t.py:11 n=10.5`)
	blankValues(b, `E  KeyError: "US" at t.py:11 n=7`)
	if a.String() != b.String() {
		t.Errorf("%q != %q", a.String(), b.String())
	}
	c := &strings.Builder{}
	blankValues(c, `E  KeyError: 'EU' at t.py:12 n=10.5`)
	if c.String() == a.String() {
		t.Errorf("another line number must differ: %q", c.String())
	}
}

// TestRaceKeepsBothStacks: a race report's "Previous write" stack repeats
// the frames of the access above it; both are kept.
func TestRaceKeepsBothStacks(t *testing.T) {
	for _, e := range loadCorpus(t) {
		if e.Name != "go-test-race" {
			continue
		}
		_, d := compressEntry(e, Summary)
		_, after, ok := strings.Cut(d, "Previous write at 0x00c000018258 by goroutine 11:\n")
		if !ok {
			t.Fatalf("no Previous write header:\n%s", d)
		}
		if lines := strings.SplitN(after, "\n", 3); !strings.Contains(lines[1], "race.go:8") {
			t.Fatalf("the Previous write stack lost its frame:\n%s", d)
		}
		return
	}
	t.Fatal("go-test-race not in the corpus")
}
