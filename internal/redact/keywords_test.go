package redact

import (
	"bytes"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestKeywordScanFindsEveryOccurrence: the prefilter reports exactly the
// occurrences a plain case-insensitive search for each keyword finds, in
// lines drawn from the keywords themselves, their case variants and
// bytes around them, over the real prefilter list and over lists drawn
// from short words (one to six bytes) that share their starts.
func TestKeywordScanFindsEveryOccurrence(t *testing.T) {
	type occ struct{ id, start, end int }
	naive := func(words []string, line []byte) []occ {
		var out []occ
		lower := bytes.ToLower(line) // ASCII folding only: keywords are ASCII
		for i := range lower {
			if line[i] >= 0x80 {
				lower[i] = line[i]
			}
		}
		for id, w := range words {
			w := bytes.ToLower([]byte(w))
			for at := 0; at+len(w) <= len(lower); at++ {
				if bytes.Equal(lower[at:at+len(w)], w) {
					out = append(out, occ{id, at, at + len(w)})
				}
			}
		}
		return out
	}
	sorted := func(o []occ) []occ {
		slices.SortFunc(o, func(a, b occ) int {
			if a.start != b.start {
				return a.start - b.start
			}
			if a.id != b.id {
				return a.id - b.id
			}
			return a.end - b.end
		})
		return o
	}
	rapid.Check(t, func(t *rapid.T) {
		var words []string
		if rapid.Bool().Draw(t, "real list") {
			words = prefilterList
		} else {
			words = rapid.SliceOfNDistinct(rapid.StringOfN(rapid.SampledFrom([]rune("abpsk-_.")), 1, 6, -1),
				1, 40, func(s string) string { return s }).Draw(t, "words")
		}
		pieces := rapid.SliceOfN(rapid.OneOf(
			rapid.SampledFrom(words),
			rapid.StringOfN(rapid.SampledFrom([]rune("aAbBpPsSkK-_. =:é\t")), 0, 8, -1),
		), 0, 30).Draw(t, "pieces")
		line := joinDrawn(t, pieces, false)
		x := newKeywordIndex(words)
		var got []occ
		x.scan(line, func(id, start, end int) { got = append(got, occ{id, start, end}) })
		if want := naive(words, line); !slices.Equal(sorted(got), sorted(want)) {
			t.Fatalf("line %q:\n got %v\nwant %v", line, got, want)
		}
	})
}

// TestHoldsWordIsTheIndex: a line searched word by word, as mayHold
// searches the short lines of a process before it builds the index, holds
// a word exactly where the index finds one, in lines drawn from the words,
// their case variants and bytes around them.
func TestHoldsWordIsTheIndex(t *testing.T) {
	x := newKeywordIndex(prefilterList)
	rapid.Check(t, func(t *rapid.T) {
		pieces := rapid.SliceOfN(rapid.OneOf(
			rapid.SampledFrom(prefilterList),
			rapid.StringOfN(rapid.SampledFrom([]rune("aAbBkKyY-_. =:é\t\xff")), 0, 8, -1),
		), 0, 12).Draw(t, "pieces")
		line := joinDrawn(t, pieces, true)
		if len(line) > directLine {
			line = line[:directLine]
		}
		found := false
		x.scan(line, func(int, int, int) { found = true })
		if got := holdsWord(line); got != found {
			t.Fatalf("line %q: word by word %v, the index %v", line, got, found)
		}
	})
}

// joinDrawn joins pieces, each drawn in upper case or as it is and, with
// cut, cut short or whole (a word's start alone holds no word).
func joinDrawn(t *rapid.T, pieces []string, cut bool) []byte {
	var line []byte
	for _, p := range pieces {
		if rapid.Bool().Draw(t, "upper") {
			p = string(bytes.ToUpper([]byte(p)))
		}
		if cut && rapid.Bool().Draw(t, "cut it") {
			p = p[:rapid.IntRange(0, len(p)).Draw(t, "cut")]
		}
		line = append(line, p...)
	}
	return line
}
