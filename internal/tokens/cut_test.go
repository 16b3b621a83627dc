package tokens

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// pieces are the kinds of text whose neighbourhoods decide how o200k splits:
// newlines alone and in runs, white space, letters of both cases, digits,
// punctuation and slashes, contractions, text past ASCII.
var pieces = []string{"\n", "\n\n", "\r\n", " ", "  ", "\t", "a", "Abc", "x1", "12", "123456", "/", "//",
	";", "...", "'s", "'T", "'", "é", "日本", "\u00a0", "\u2028", "\f", "\v", "-", "(", ")", "\n/", "\n ", "_",
	"{", "}", "FAIL", "go:12:", "1.5"}

// TestCountInPiecesIsCountWhole: counting a text in pieces cut where cutNear
// says, and in halves counted at once, gives the count of the whole text,
// for texts made of every kind of neighbourhood, cut as often as they can
// be.
func TestCountInPiecesIsCountWhole(t *testing.T) {
	defer func(n, h int) { countPiece, halvesFrom = n, h }(countPiece, halvesFrom)
	countPiece, halvesFrom = 4, 4
	rapid.Check(t, func(t *rapid.T) {
		text := strings.Join(rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 60).Draw(t, "text"), "")
		if got, want := Count(text), countWhole(text); got != want {
			t.Fatalf("%q: %d counted in pieces, %d whole", text, got, want)
		}
	})
}

// TestCutsFoundBefore are the texts the properties below once failed on:
// a cut before '/' after a newline changes the count ("/\n/": the
// punctuation run takes the newline and the slash), and a counter that cut
// a run of newlines said its inexact total was exact.
func TestCutsFoundBefore(t *testing.T) {
	defer func(n int) { countPiece = n }(countPiece)
	countPiece = 4
	if text := "/\n/  "; Count(text) != countWhole(text) {
		t.Errorf("%q: %d counted in pieces, %d whole", text, Count(text), countWhole(text))
	}
	slashes := strings.Repeat("\n\n\n\n\n/", 80<<10/6+1)
	var c Counter
	c.Add(slashes)
	if n, exact := c.Total(); exact && n != countWhole(slashes) {
		t.Errorf("a run of newlines and slashes: %d said exact, whole %d", n, countWhole(slashes))
	}
}

// TestCounterIsCountWhole streams texts longer than the counter's chunks
// through it in pieces that split lines anywhere: within its budget its
// total is the whole text's count.
func TestCounterIsCountWhole(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		line := strings.Join(rapid.SliceOfN(rapid.SampledFrom(pieces), 1, 40).Draw(t, "line"), "")
		if strings.TrimSpace(line) == "" {
			// Repeated, it is one run of white space as long as the text,
			// which the tokenizer's expression takes quadratic time over.
			line += "x"
		}
		text := strings.Repeat(line, 80<<10/len(line)+1) // past one chunk of the counter
		step := rapid.IntRange(1, 5000).Draw(t, "step")
		c := Counter{Budget: 1 << 20}
		for i := 0; i < len(text); i += step {
			c.Add(text[i:min(i+step, len(text))])
		}
		got, exact := c.Total()
		if want := countWhole(text); exact && got != want {
			t.Fatalf("%q repeated: counter %d said exact, whole %d", line, got, want)
		}
		if !exact && cutNear(text, len(text)) > 0 {
			t.Fatalf("%q repeated: counter not exact on a text it could cut cleanly", line)
		}
	})
}

// TestLongWhiteSpaceIsCutAndSaidRough: a stream of blank lines with a space
// on each is counted in runs of at most longSpace, its total said not to be
// exact, and close to the exact count of a shorter stream of the same lines.
func TestLongWhiteSpaceIsCutAndSaidRough(t *testing.T) {
	text := strings.Repeat(" \n", 4*longSpace)
	var c Counter
	c.Add(text)
	got, exact := c.Total()
	if exact {
		t.Fatal("a count that cut a run of white space was said exact")
	}
	want := countWhole(text)
	if diff := got - want; diff < -want/100 || diff > want/100 {
		t.Fatalf("counted %d, the whole text is %d tokens", got, want)
	}
	var short Counter
	short.Add(strings.Repeat(" \n", longSpace/4))
	if _, exact := short.Total(); !exact {
		t.Fatal("a short run of white space was cut")
	}
}

// TestRoughCutInEitherHalfIsSaid: a chunk counted in two halves
// (inHalves) is said inexact when either half cut a run of white space.
func TestRoughCutInEitherHalfIsSaid(t *testing.T) {
	lines, blank := strings.Repeat("x\n", halvesFrom/2), strings.Repeat(" \n", 4*longSpace)
	for name, text := range map[string]string{"blank run first": blank + "y\n" + lines, "blank run last": lines + blank} {
		if cutNear(text, len(text)/2) <= 0 {
			t.Fatalf("%s: no clean cut to count the halves at", name)
		}
		var c Counter
		c.Add(text)
		if n, exact := c.Total(); exact {
			t.Errorf("%s: %d tokens said exact, though a run of white space was cut", name, n)
		}
	}
}
