package rank

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"pgregory.net/rapid"
)

func TestIdentParts(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"fish_completions_test.go", []string{"fish", "completions", "test", "go"}},
		{"TestFailGenFishCompletionFile", []string{"Test", "Fail", "Gen", "Fish", "Completion", "File"}},
		{"HTTPServer2", []string{"HTTP", "Server2"}},
		{"auth/token.go:17", []string{"auth", "token", "go", "17"}},
		{"scheduler.(*Scheduler).Run", []string{"scheduler", "Scheduler", "Run"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := IdentParts(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("IdentParts(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCandidateHasEveryPart: scoring finds, in a record's text, every part
// the index was given for it, so a part that found a record also scores.
func TestCandidateHasEveryPart(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := rapid.StringMatching(`[A-Za-z0-9_./ :-]{0,40}`).Draw(t, "text")
		c := NewDoc(0, text, nil)
		for _, p := range strings.Fields(PartsText(text)) {
			if !c.has(p) {
				t.Fatalf("part %q of %q not found", p, text)
			}
		}
		for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !isTokenByte(byte(r)) }) {
			if !c.has(strings.ToLower(w)) {
				t.Fatalf("word %q of %q not found", w, text)
			}
		}
	})
}

// TestPhraseGuardChangesNothing: the cheap check before the phrase
// expression never turns a match into none, whatever the text's case and
// letters that fold to ASCII ones.
func TestPhraseGuardChangesNothing(t *testing.T) {
	matched, missed := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		// Distinct words, so every query has a phrase to test.
		words := rapid.SliceOfNDistinct(rapid.StringMatching(`[A-Za-z0-9_]{1,6}`), 2, 3, strings.ToLower).Draw(t, "words")
		q := Parse(strings.Join(words, " "))
		// The text holds the words in order, each letter's case flipped or
		// k and s written as the letters that fold to them, or not.
		// Half the texts set the words apart from what surrounds them, so
		// the phrase matches; the other half may join them to it, so it may
		// not. Both answers are tested in every run, however short.
		apart := rapid.Bool().Draw(t, "apart")
		seps := []string{" ", ": ", "-", "x"}
		if apart {
			seps = seps[:3]
		}
		var b strings.Builder
		b.WriteString(rapid.StringMatching(`[a-z .]{0,8}`).Draw(t, "before"))
		if apart {
			b.WriteString(" ")
		}
		for i, w := range words {
			if i > 0 {
				b.WriteString(rapid.SampledFrom(seps).Draw(t, "sep"))
			}
			for _, r := range w {
				switch rapid.IntRange(0, 3).Draw(t, "how") {
				case 1:
					r = unicode.SimpleFold(r)
				case 2:
					if r == 'k' || r == 'K' {
						r = '\u212a'
					} else if r == 's' || r == 'S' {
						r = '\u017f'
					}
				}
				b.WriteRune(r)
			}
		}
		if apart {
			b.WriteString(" ")
		}
		b.WriteString(rapid.StringMatching(`[a-z .]{0,8}`).Draw(t, "after"))
		text := b.String()
		d := NewDoc(0, text, nil)
		want := q.Phrase != nil && q.Phrase.MatchString(text)
		if want {
			matched++
		} else if q.Phrase != nil {
			missed++
		}
		if q.Phrase != nil && hasPhrase(d, q) != want {
			t.Fatalf("words %q, text %q: guard says %v, the expression %v", words, text, hasPhrase(d, q), want)
		}
	})
	if matched == 0 || missed == 0 {
		t.Fatalf("%d texts matched the phrase and %d did not: the property needs both", matched, missed)
	}
}
