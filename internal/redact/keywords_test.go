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
		var line []byte
		for _, p := range pieces {
			if rapid.Bool().Draw(t, "upper") {
				p = string(bytes.ToUpper([]byte(p)))
			}
			line = append(line, p...)
		}
		x := newKeywordIndex(words)
		var got []occ
		x.scan(line, func(id, start, end int) { got = append(got, occ{id, start, end}) })
		if want := naive(words, line); !slices.Equal(sorted(got), sorted(want)) {
			t.Fatalf("line %q:\n got %v\nwant %v", line, got, want)
		}
	})
}
