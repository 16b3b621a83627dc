package facts

import (
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestLine(t *testing.T) {
	tests := []struct {
		line string
		want []Fact
	}{
		{"--- FAIL: TestAdd/negative (0.00s)", []Fact{{Test, "TestAdd/negative"}}},
		{`{"Time":"x","Action":"fail","Package":"p","Test":"TestAdd","Elapsed":0}`, []Fact{{Test, "TestAdd"}}},
		{"test calc::tests::adds ... FAILED", []Fact{{Test, "calc::tests::adds"}}},
		{"thread 'calc::tests::adds' panicked at src/lib.rs:10:5:", []Fact{{Test, "calc::tests::adds"}}},
		{"FAILED tests/test_calc.py::test_add - assert 3 == 4", []Fact{{Test, "tests/test_calc.py::test_add"}}},
		{"FAIL: test_add (test_calc.TestCalc.test_add)", []Fact{{Test, "test_calc.TestCalc.test_add"}}},
		{"  ● Calculator › adds numbers", []Fact{{Test, "Calculator › adds numbers"}}},
		{"    ✕ adds numbers (3 ms)", []Fact{{Test, "adds numbers"}}},
		{"not ok 2 - subtracts", []Fact{{Test, "subtracts"}}},
		{"[ERROR]   CalcTest.testAdd:12 expected:<3> but was:<4>", []Fact{{Test, "CalcTest.testAdd"}}},
		{"error[E0308]: mismatched types", []Fact{{Code, "E0308"}}},
		{"src/a.ts(3,7): error TS2322: Type 'string' is not assignable", []Fact{{Code, "TS2322"}}},
		{"  12:7  error  'unused' is defined but never used  no-unused-vars", []Fact{{Code, "no-unused-vars"}, {Symbol, "unused"}}},
		{"./calc.go:5:2: undefined: Sub", []Fact{{Symbol, "Sub"}}},
		{"error[E0425]: cannot find value `y` in this scope", []Fact{{Code, "E0425"}, {Symbol, "y"}}},
		{"NameError: name 'foo' is not defined", []Fact{{Symbol, "foo"}, {Symbol, "NameError"}}},
		{"Exception in thread \"main\" java.lang.IllegalStateException: boom", []Fact{{Symbol, "IllegalStateException"}}},
		{"ok  \tgithub.com/a/b\t0.01s", nil},
	}
	for _, tt := range tests {
		if got := Line(tt.line); !slices.Equal(got, tt.want) {
			t.Errorf("Line(%q)\n got %v\nwant %v", tt.line, got, tt.want)
		}
	}
}

func TestSetDedupAndShortNames(t *testing.T) {
	var s Set
	s.Add("--- FAIL: TestAdd/negative (0.00s)")
	s.Add("--- FAIL: TestAdd/negative (0.00s)")
	s.Add("test calc::tests::adds ... FAILED")
	if len(s.List()) != 2 {
		t.Fatalf("list = %v", s.List())
	}
	if got := s.Text(); got != "TestAdd/negative negative\ncalc::tests::adds adds\n" {
		t.Fatalf("Text = %q", got)
	}
}

func FuzzLine(f *testing.F) {
	f.Add("--- FAIL: TestX error[E0001] undefined: y")
	f.Fuzz(func(t *testing.T, s string) {
		got := Line(s)
		for _, fa := range got {
			if fa.Value == "" {
				t.Fatal("empty fact")
			}
		}
		if all, ok := gatedAsAll(s, got); !ok { // the hints and gates skip nothing that matches
			t.Fatalf("%q: %v with the gates, %v with every expression run", s, got, all)
		}
	})
}

// TestGatesNeverTurnAwayAMatch: the hints and gates only skip expressions
// that would add no fact: a line yields the facts it yields with every
// expression run.
func TestGatesNeverTurnAwayAMatch(t *testing.T) {
	pieces := []string{"a.go", ":", "1", "12", " ", "  ", "\t", "E101", "C:\\x", "error", "warning", "no-unused", "x", "'", "Error",
		"Exception", "●", "FAIL", "--- ", "not ok", "TS", "undefined: ", "is not defined", "a.go:1:12: E101 ", "  3:4  error  Bad thing  no-unused",
		"was not declared", "has no attribute", "is declared but its value is never read", "A", "z", "_", "9", "(", ".", "Errorf"}
	rapid.Check(t, func(t *rapid.T) {
		line := strings.Join(rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 10).Draw(t, "parts"), "")
		got := Line(line)
		if all, ok := gatedAsAll(line, got); !ok {
			t.Fatalf("%q: %v with the gates, %v with every expression run", line, got, all)
		}
	})
}

// gatedAsAll reports whether got, the facts Line found in line, are the
// facts every expression run over it finds, which it returns.
func gatedAsAll(line string, got []Fact) ([]Fact, bool) {
	all := find(line, 1<<len(patterns)-1)
	got = slices.Clone(got)
	slices.SortFunc(got, compareFacts)
	slices.SortFunc(all, compareFacts)
	return all, slices.Equal(got, all)
}

func compareFacts(a, b Fact) int {
	if a.Kind != b.Kind {
		return strings.Compare(string(a.Kind), string(b.Kind))
	}
	return strings.Compare(a.Value, b.Value)
}

// TestNameGates: the gates of the quoted-name and error-name expressions
// admit each form their expressions match, and turn away the lines of Go
// source that hold their hints most often.
func TestNameGates(t *testing.T) {
	for _, c := range []struct {
		gate func(string) bool
		line string
		want bool
	}{
		{verdictAfterQuote, "'foo' is not defined", true},
		{verdictAfterQuote, "'foo' is defined but never used", true},
		{verdictAfterQuote, "src/a.ts:3:7 - 'x' was not declared", true},
		{verdictAfterQuote, "'y' is declared but its value is never read.", true},
		{verdictAfterQuote, "AttributeError: 'module' object has no attribute 'z'", false},
		{verdictAfterQuote, "AttributeError: 'z' has no attribute 'q'", true},
		{verdictAfterQuote, "	case '\\n', ' ':", false},
		{errorName, "ValueError: bad", true},
		{errorName, "raise ZeroDivisionError('x')", true},
		{errorName, "at java.lang.NullPointerException", true},
		{errorName, "(IOError)", true},
		{errorName, "E_Error", true},
		{errorName, "	return fmt.Errorf(\"x: %w\", err)", false},
		{errorName, "	msg := err.Error()", false},
		{errorName, "Error: x", false},
		{errorName, "type ErrorCode int", false},
		{errorName, "my_Error", false},
		{exceptionName, "java.lang.IllegalStateException: x", true},
		{exceptionName, "Exception in thread", false},
	} {
		if got := c.gate(c.line); got != c.want {
			t.Errorf("gate(%q) = %v, want %v", c.line, got, c.want)
		}
		if all, ok := gatedAsAll(c.line, Line(c.line)); !ok {
			t.Errorf("%q: %v with the gates, %v with every expression run", c.line, Line(c.line), all)
		}
	}
}

// TestHintsInFindsEveryHint: hintsIn's one pass over a line finds every
// pattern whose hint the line holds, wherever it is (a hint of one byte at
// the line's end too), and no other.
func TestHintsInFindsEveryHint(t *testing.T) {
	var pieces []string
	for _, p := range patterns {
		if p.hint != "" {
			pieces = append(pieces, p.hint, p.hint[:1], p.hint[len(p.hint)-1:])
		}
	}
	pieces = append(pieces, "a", " ", "\t", "é", "\x00", "\xff", "F", "FAI")
	check := func(t interface{ Fatalf(string, ...any) }, line string) {
		want := uint64(0)
		for i, p := range patterns {
			if strings.Contains(line, p.hint) {
				want |= 1 << i
			}
		}
		if got := hintsIn(line); got != want {
			t.Fatalf("hintsIn(%q) = %b, want %b", line, got, want)
		}
	}
	for _, line := range []string{"", "'", "x'", "'é", "'\xff", "'\x00", "●", "a ●", "FAIL", "FAI", "x FAIL"} {
		check(t, line)
	}
	rapid.Check(t, func(t *rapid.T) {
		check(t, strings.Join(rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 8).Draw(t, "pieces"), ""))
	})
}
