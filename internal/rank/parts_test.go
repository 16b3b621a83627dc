package rank

import (
	"slices"
	"strings"
	"testing"

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
