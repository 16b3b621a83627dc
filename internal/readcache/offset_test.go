package readcache

import (
	"errors"
	"testing"
)

func TestWithOffset(t *testing.T) {
	for _, tc := range []struct {
		name   string
		req    ReadRequest
		given  lineRange
		want   lineRange
		refuse string // the RangeError's message, when refused
	}{
		{"neither", ReadRequest{}, lineRange{}, lineRange{}, ""},
		{"a spec's range alone", ReadRequest{}, lineRange{3, 5}, lineRange{3, 5}, ""},
		{"offset", ReadRequest{Offset: 4}, lineRange{}, lineRange{4, 0}, ""},
		{"limit from the top", ReadRequest{Limit: 2}, lineRange{}, lineRange{1, 2}, ""},
		{"offset and limit", ReadRequest{Offset: 4, Limit: 3}, lineRange{}, lineRange{4, 6}, ""},
		{"negative offset", ReadRequest{Offset: -1}, lineRange{}, lineRange{}, "--offset -1: want the first line to read, 1 or more"},
		{"negative limit", ReadRequest{Offset: 2, Limit: -3}, lineRange{}, lineRange{}, "--limit -3: want how many lines to read, 1 or more"},
		{"both kinds of range", ReadRequest{Target: "a.go:2", Limit: 1}, lineRange{2, 0}, lineRange{}, "a.go:2 with --offset/--limit: want either PATH:N-M or --offset/--limit, not both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := withOffset(tc.req, tc.given)
			if tc.refuse != "" {
				var re *RangeError
				if !errors.As(err, &re) || err.Error() != tc.refuse {
					t.Fatalf("withOffset = %+v, %v; want the RangeError %q", got, err, tc.refuse)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("withOffset = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}
