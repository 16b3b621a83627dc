package rx

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestSpaceHelpersAreTheStringsFunctions: over any bytes, the helpers give
// what strings.TrimLeft and strings.IndexAny give with \s as the cut set.
func TestSpaceHelpersAreTheStringsFunctions(t *testing.T) {
	const set = " \t\n\f\r"
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(rapid.String(), rapid.StringOf(rapid.SampledFrom([]rune(set+"ab\v\x00é")))).Draw(t, "s")
		if got, want := TrimLeftSpace(s), strings.TrimLeft(s, set); got != want {
			t.Fatalf("TrimLeftSpace(%q) = %q, want %q", s, got, want)
		}
		if got, want := IndexSpace(s), strings.IndexAny(s, set); got != want {
			t.Fatalf("IndexSpace(%q) = %d, want %d", s, got, want)
		}
	})
}
