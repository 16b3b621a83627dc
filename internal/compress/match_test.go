package compress

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestAfterColonsIsTheExpression holds afterColons to the expression it
// stands for, `::.*` and the word and `\b`, on drawn lines made of the
// bytes that matter (colons, spaces, the word's letters, word and non-word
// bytes, invalid UTF-8) and on pytest's real lines.
func TestAfterColonsIsTheExpression(t *testing.T) {
	for _, word := range []string{" PASSED", " SKIPPED", " XFAIL", " XPASS"} {
		re := regexp.MustCompile(`::.*` + regexp.QuoteMeta(word) + `\b`)
		test := afterColons(word)
		check := func(tb interface{ Fatalf(string, ...any) }, line string) {
			if got, want := test(line), re.MatchString(line); got != want {
				tb.Fatalf("%q in %q: afterColons says %v, the expression %v", word, line, got, want)
			}
		}
		for _, line := range []string{
			"tests/test_a.py::test_one PASSED  [ 10%]",
			"tests/test_a.py::test_one PASSEDX",
			"tests/test_a.py::test_one PASSED_",
			"tests/test_a.py::test_one PASSED.",
			"PASSED tests/test_a.py::test_one",
			"a:: PASSED",
			"a: PASSED ::",
			"a::x PASSEDy PASSED",
			"a::x PASSEDy PASSEDz",
			"::" + word,
		} {
			check(t, line)
		}
		t.Run(strings.TrimSpace(word), func(t *testing.T) {
			parts := []string{":", "::", " ", word, word[:len(word)-1], "x", "_", "-", ".", "\xff", "é", "\t"}
			rapid.Check(t, func(rt *rapid.T) {
				line := strings.Join(rapid.SliceOfN(rapid.SampledFrom(parts), 0, 12).Draw(rt, "parts"), "")
				check(rt, line)
			})
		})
	}
}

// TestLocationIsTheExpression holds location, which runs pyLocation only
// on lines holding ".py:" and a digit, to the expression run on every line.
func TestLocationIsTheExpression(t *testing.T) {
	check := func(tb interface{ Fatalf(string, ...any) }, line string) {
		if got, want := location(line), pyLocation.Std().FindStringSubmatch(line); !slices.Equal(got, want) {
			tb.Fatalf("%q: location %q, the expression %q", line, got, want)
		}
	}
	for _, line := range []string{
		"pricing/rates.py:9: KeyError",
		"pricing/rates.py:17: in parse_price",
		"tests/test_pricing.py::test_gross_eu[1] PASSED",
		"a.py::b.py:3:",
		"x.py:",
		".py:1",
		"lib/x.py:0: in f",
	} {
		check(t, line)
	}
	parts := []string{".py", ":", "::", "0", "1", "42", "9", " ", "in f", "x", "/", "é", "\xff", "_", "."}
	rapid.Check(t, func(rt *rapid.T) {
		check(rt, strings.Join(rapid.SliceOfN(rapid.SampledFrom(parts), 0, 10).Draw(rt, "parts"), ""))
	})
}
