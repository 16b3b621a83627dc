package readcache

import "testing"

// seenMatches takes text a client delivered for lines only when it is
// those lines: in a client's form exactly as the client joins them (at
// "\n", the last without its newline), or differing by a final newline
// alone; a range whose last line is empty ends in the newline that joins
// it, and matches in a form.
func TestSeenMatchesTheLinesDelivered(t *testing.T) {
	content := []byte("a\nb\n\nc\n")
	for _, tc := range []struct {
		rng        lineRange
		seen       string
		form, want bool
	}{
		{lineRange{}, "a\nb\n\nc\n", true, true},
		{lineRange{}, "a\nb\n\nc", false, true},
		{lineRange{}, "a\nb\n\nc\nd", true, false},
		{lineRange{1, 2}, "a\nb", true, true},
		{lineRange{1, 2}, "a\nb\n", false, true},
		{lineRange{2, 3}, "b\n", true, true},   // the empty line 3, as the client joins it
		{lineRange{2, 3}, "b\n", false, false}, // without a form, as it was
		{lineRange{2, 3}, "b", true, false},
		{lineRange{4, 4}, "c", true, true},
		{lineRange{4, 4}, "d", true, false},
	} {
		if got := seenMatches(content, tc.rng, tc.seen, tc.form); got != tc.want {
			t.Errorf("lines %d-%d, %q, form %v: %v, want %v", tc.rng.start, tc.rng.end, tc.seen, tc.form, got, tc.want)
		}
	}
}
