package records

import (
	"fmt"
	"slices"
	"testing"
)

// TestRecallRanksStrongMatchFirst holds recall to the cases users hit: a
// record that matches the query much better ranks first, whatever came
// after it; parts of names find the whole; a full path beats a file of the
// same base name.
func TestRecallRanksStrongMatchFirst(t *testing.T) {
	s, _ := newService(t)
	panicRec := run(t, s, `echo "--- FAIL: TestRun (0.00s)"; echo "panic: assignment to entry in nil map"; echo "scheduler.Run(...)"; echo "	scheduler/run.go:42 +0x1d"`)
	run(t, s, `echo "scheduler/other.go:3: warning: shadowed variable"`)
	tokenRec := run(t, s, `echo "auth/token.go:17: undefined: Claims"`)
	otherToken := run(t, s, `echo "cache/token.go:9: undefined: Entry"`)
	run(t, s, `echo "counted 1200 tokens"; echo "tokens: 1200 in, 300 out"`)
	fish := run(t, s, `echo "--- FAIL: TestFailGenFishCompletionFile (0.00s)"; echo "    fish_completions_test.go:141: open: permission denied"`)
	for i := range 5 {
		run(t, s, fmt.Sprintf(`echo "--- FAIL: TestZshCompletion%d (0.00s)"; echo "    zsh_completions_test.go:%d: completion differs"`, i, 10+i))
	}
	for _, tt := range []struct {
		query string
		want  int64
	}{
		{"nil map panic scheduler.Run", panicRec.ID},
		{"auth/token.go", tokenRec.ID},
		{"cache/token.go", otherToken.ID},
		{"fish", fish.ID},
		{"completions fish", fish.ID},
		{"GenFish", fish.ID},
		{"FishCompletion", fish.ID},
	} {
		hits := recall(t, s, tt.query)
		if len(hits) == 0 || hits[0].ID != tt.want {
			t.Errorf("recall %q = %v, want %d first", tt.query, ids(hits), tt.want)
		}
	}
	// A file name: both files of that name before the record saying "tokens".
	if got := ids(recall(t, s, "token.go")); len(got) < 2 || got[0] != otherToken.ID || got[1] != tokenRec.ID {
		t.Errorf("recall token.go = %v, want %d and %d (newest first) on top", got, otherToken.ID, tokenRec.ID)
	}
	// A full path: the file of the same base name elsewhere comes after.
	hits := recall(t, s, "auth/token.go")
	i := slices.IndexFunc(hits, func(h Hit) bool { return h.ID == otherToken.ID })
	if i < 0 || hits[0].ID != tokenRec.ID || hits[i].Score >= hits[0].Score {
		t.Errorf("auth/token.go: cache/token.go must follow with a lower score: %v", ids(hits))
	}
}

// TestRecallRareWordAmongManyRecords: among 10,000 records that share common
// words, the one record holding the rare ones comes first (plain FTS5 ranks
// it first too; an older recall returned the newest sharers of a common word).
func TestRecallRareWordAmongManyRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 records")
	}
	s, r := newService(t)
	files := writeFiles(r, 50, 5)
	r.Write("daemon/container/container.go", "package container\n")
	r.Commit("files")
	benchRoot = s.WS.Root
	seedRecords(t, s, 5000, files)
	valueErr := run(t, s, `echo "Traceback (most recent call last):"; echo "ValueError: merge139 expected a list"`)
	borrow := run(t, s, `echo "error[E0499]: cannot borrow as mutable more than once"; echo " --> daemon/container/container.go:88:5"`)
	seedRecords(t, s, 5000, files)
	for _, tt := range []struct {
		query string
		want  int64
	}{
		{"ValueError merge139", valueErr.ID},
		{"E0499 daemon/container/container.go", borrow.ID},
	} {
		hits := recall(t, s, tt.query)
		if len(hits) == 0 || hits[0].ID != tt.want {
			t.Errorf("recall %q = %v, want %d first", tt.query, ids(hits), tt.want)
		}
	}
}
