package render

import (
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/artifact"
)

// stale builds a get's result the way artifact.Get does: each named slice
// keeps its own reasons, and the artifact's list carries them as
// "slice NAME: DETAIL" in slice order, an unnamed slice's among them.
func stale(unnamed []artifact.Reason, slices map[string][]artifact.Reason, order ...string) *artifact.GetResult {
	r := &artifact.GetResult{Outcome: artifact.Stale}
	r.Reasons = append(r.Reasons, unnamed...)
	for _, name := range order {
		s := artifact.SliceResult{Name: name, Fresh: len(slices[name]) == 0, Reasons: slices[name]}
		for _, x := range s.Reasons {
			r.Reasons = append(r.Reasons, artifact.Reason{Dimension: x.Dimension, Detail: "slice " + name + ": " + x.Detail})
		}
		r.Slices = append(r.Slices, s)
	}
	return r
}

func TestArtifactOutcomeNamesSlicesStaleAlikeOnce(t *testing.T) {
	moved := artifact.Reason{Dimension: "path_set", Detail: "files were added, removed or moved"}
	changed := func(f string) artifact.Reason {
		return artifact.Reason{Dimension: "file_digest", Detail: f + ": content changed"}
	}
	for _, c := range []struct {
		name string
		r    *artifact.GetResult
		want string
	}{
		{"cold", &artifact.GetResult{Outcome: artifact.Cold}, "freshctx: cold: no such artifact\n"},
		{"unsliced", stale([]artifact.Reason{changed("a.go")}, nil),
			"freshctx: stale: file_digest: a.go: content changed\n"},
		{"one slice", stale(nil, map[string][]artifact.Reason{"a": {changed("a.go")}}, "a", "b"),
			"freshctx: stale: file_digest: slice a: a.go: content changed\n"},
		{"every slice by its path set, one by its file too",
			stale(nil, map[string][]artifact.Reason{"a": {moved}, "b": {moved, changed("b.go")}, "c": {moved}, "d: e": {moved}},
				"a", "b", "c", "d: e"),
			"freshctx: stale: path_set: 4 slices (a, b, c and 1 more): files were added, removed or moved\n" +
				"freshctx: stale: file_digest: slice b: b.go: content changed\n"},
		{"an unnamed slice beside named ones",
			stale([]artifact.Reason{changed("slice a: x.go")}, map[string][]artifact.Reason{"a": {moved}, "b": {moved}}, "a", "b"),
			"freshctx: stale: file_digest: slice a: x.go: content changed\n" +
				"freshctx: stale: path_set: 2 slices (a, b): files were added, removed or moved\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			if err := ArtifactOutcome(&b, c.r); err != nil {
				t.Fatal(err)
			}
			if b.String() != c.want {
				t.Fatalf("got\n%s\nwant\n%s", b.String(), c.want)
			}
		})
	}
}
