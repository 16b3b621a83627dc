package records

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/workspace"
)

func recall(t *testing.T, s *Service, q string, files ...string) []Hit {
	t.Helper()
	hits, err := s.Recall(context.Background(), RecallRequest{Query: q, Files: files})
	if err != nil {
		t.Fatalf("Recall(%q): %v", q, err)
	}
	return hits
}

func ids(hits []Hit) []int64 {
	var out []int64
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

func TestRecallFreshBeatsStaleOnEqualMatch(t *testing.T) {
	s, r := newService(t)
	r.Write("a/x.go", "package a\n")
	r.Write("b/x.go", "package b\n")
	r.Commit("two files")
	fresh := run(t, s, `echo "--- FAIL: TestParse (0.00s)"; echo "    a/x.go:3: parse error"`)
	stale := run(t, s, `echo "--- FAIL: TestParse (0.00s)"; echo "    b/x.go:3: parse error"`)
	r.Write("b/x.go", "package b // changed\n")
	hits := recall(t, s, "TestParse parse error")
	if len(hits) != 2 || hits[0].ID != fresh.ID || hits[1].ID != stale.ID {
		t.Fatalf("order = %v, want fresh %d before newer stale %d", ids(hits), fresh.ID, stale.ID)
	}
	if hits[0].Freshness.Label != freshness.Fresh || hits[1].Freshness.Label != freshness.StaleChanged {
		t.Fatalf("labels = %s, %s", hits[0].Freshness.Label, hits[1].Freshness.Label)
	}
}

func TestRecallStrongStaleBeatsWeakFresh(t *testing.T) {
	s, r := newService(t)
	strong := run(t, s, `echo "--- FAIL: TestAdd (0.00s)"; echo "pkg/calc.go:3:2: undefined: Sub"; echo "calc test failed"`)
	r.Write("pkg/calc.go", "package pkg // changed\n")
	weak := run(t, s, `echo "integration run failed"`)
	hits := recall(t, s, "TestAdd pkg/calc.go undefined Sub failed")
	if len(hits) < 2 || hits[0].ID != strong.ID {
		t.Fatalf("order = %v, want the strong stale match %d first (weak fresh %d)", ids(hits), strong.ID, weak.ID)
	}
	if hits[0].Freshness.Label != freshness.StaleChanged {
		t.Fatalf("label = %s", hits[0].Freshness.Label)
	}
	// The result says which file changed and how.
	f := hits[0].Files[0]
	if f.Path != "pkg/calc.go" || f.Label != freshness.StaleChanged || !strings.Contains(f.Reason, "content changed") {
		t.Fatalf("files = %+v", hits[0].Files)
	}
}

func TestRecallFileFilter(t *testing.T) {
	s, r := newService(t)
	r.Write("internal/store/db.go", "package store\n")
	r.Write("internal/cli/root.go", "package cli\n")
	inStore := run(t, s, `echo "internal/store/db.go:9: error: locked"`)
	inCLI := run(t, s, `echo "internal/cli/root.go:9: error: locked"`)
	for _, tt := range []struct {
		file string
		want []int64
	}{
		{"internal/store/db.go", []int64{inStore.ID}},
		{"internal/store", []int64{inStore.ID}},
		{"internal/store/", []int64{inStore.ID}},
		{"internal", []int64{inCLI.ID, inStore.ID}},
		{"internal/st", nil}, // a prefix of a name is not a folder
	} {
		if got := ids(recall(t, s, "locked", tt.file)); !slices.Equal(got, tt.want) {
			t.Errorf("--file %s: %v, want %v", tt.file, got, tt.want)
		}
	}
	if got := ids(recall(t, s, "", "internal/cli")); !slices.Equal(got, []int64{inCLI.ID}) {
		t.Errorf("empty query with --file: %v", got)
	}
	if _, err := s.Recall(context.Background(), RecallRequest{Query: "x", Files: []string{"../elsewhere"}}); err == nil {
		t.Error("--file outside the root accepted")
	}
}

func TestRecallExactNames(t *testing.T) {
	s, _ := newService(t)
	rec := run(t, s, `echo "test calc::tests::adds_negative ... FAILED"; echo "error[E0308]: mismatched types"`)
	run(t, s, `echo "something else entirely"`)
	for _, q := range []string{"adds_negative", "calc::tests::adds_negative", "E0308", "calc_test.go"} {
		hits := recall(t, s, q)
		if q == "calc_test.go" {
			continue // no record names it: the query must simply not fail
		}
		if len(hits) == 0 || hits[0].ID != rec.ID {
			t.Errorf("recall %q = %v, want %d first", q, ids(hits), rec.ID)
		}
	}
}

func TestRecallHostileQueries(t *testing.T) {
	s, _ := newService(t)
	run(t, s, `echo "--- FAIL: TestAdd (0.00s)"`)
	for _, q := range []string{
		`"`, `""`, `*`, `-`, `- -x`, `NEAR`, `NEAR(a b`, `(`, `)`, `((a) OR`, `AND OR NOT`, ``, `   `,
		`'; DROP TABLE records; --`, "\x00", `^a`, `col:term`, `{a b}`, `a*b*`, `%_%`, `TestAdd"`, `\`,
		strings.Repeat("word ", 500),
	} {
		if _, err := s.Recall(context.Background(), RecallRequest{Query: q}); err != nil {
			t.Errorf("Recall(%q) = %v", q, err)
		}
	}
	if hits := recall(t, s, `"TestAdd`); len(hits) != 1 {
		t.Errorf("a stray quote hid the match: %v", ids(hits))
	}
}

func TestRecallRunsNoGit(t *testing.T) {
	s, r := newService(t)
	for i := range 5 {
		r.Write("pkg/calc.go", "package pkg // "+strings.Repeat("x", i)+"\n")
		run(t, s, `echo "pkg/calc.go:1: error: again"; echo "pkg/calc_test.go:1: also"`)
	}
	calls := 0
	s.WS.Git.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		calls++
		return workspace.ExecGit(ctx, dir, args...)
	}
	if hits := recall(t, s, "error again"); len(hits) != 5 {
		t.Fatalf("hits = %d", len(hits))
	}
	if calls != 0 {
		t.Fatalf("git ran %d times for one recall, want 0: freshness is freshctx's own lstat and hash", calls)
	}
}
