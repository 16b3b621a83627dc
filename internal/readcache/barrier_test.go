package readcache

import (
	"context"
	"testing"
)

// The scenarios of seed 003's test list and the pi-readcache matrix it
// refers to, by name.

func (f *fixture) compact(session string) int64 {
	f.t.Helper()
	res, err := f.svc.Compact(context.Background(), session)
	if err != nil {
		f.t.Fatal(err)
	}
	return res.Entry
}

func (f *fixture) checkout(session string, id int64) {
	f.t.Helper()
	if _, err := f.svc.Checkout(context.Background(), session, id); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) refresh(session, target string) {
	f.t.Helper()
	if _, err := f.svc.Refresh(context.Background(), session, target); err != nil {
		f.t.Fatal(err)
	}
}

func TestFirstReadAfterCompactionIsBaselineEvenIfPrecompactionAnchorExists(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(80, "v1"))
	f.expect("s", "a.txt", ModeFull)
	f.expect("s", "a.txt", ModeUnchanged)
	f.r.Write("a.txt", editLine(lines(80, "v1"), 3, "x"))
	f.expect("s", "a.txt", ModeDiff)
	f.compact("s")
	f.expect("s", "a.txt", ModeFull) // no pre-compaction evidence is used
	f.expect("s", "a.txt", ModeUnchanged)
}

func TestLatestCompactionWinsWhenMultipleCompactionsExist(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(40, "v1"))
	f.r.Write("b.txt", lines(40, "v1"))
	f.expect("s", "a.txt", ModeFull)
	f.compact("s")
	f.expect("s", "a.txt", ModeFull)
	f.expect("s", "b.txt", ModeFull)
	f.compact("s")
	f.expect("s", "b.txt", ModeFull)
	f.expect("s", "a.txt", ModeFull)
	st, err := f.svc.Status(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	if st.Window.Entries != 2 || st.Window.StartIndex != 6 {
		t.Fatalf("window = %+v, want 2 entries from index 6", st.Window)
	}
}

func TestTreeNavigationPreCompactionRestoresPrecompactionVisibility(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(40, "v1"))
	anchor := f.expect("s", "a.txt", ModeFull).Entry
	f.compact("s")
	f.expect("s", "a.txt", ModeFull)
	f.checkout("s", anchor) // back before the compaction
	f.expect("s", "a.txt", ModeUnchanged)
}

func TestPostCompactionFirstRangeReadIsBaselineRange(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(60, "v1"))
	f.expect("s", "a.txt", ModeFull)
	f.expect("s", "a.txt:10-20", ModeUnchangedRange)
	f.compact("s")
	f.expect("s", "a.txt:10-20", ModeFull)
	f.expect("s", "a.txt:10-20", ModeUnchangedRange)
	f.expect("s", "a.txt", ModeBaselineFallback) // only lines 10-20 are known now
}

func TestNonAnchorCannotBootstrapTrust(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(40, "v1"))
	// An undelivered read is no anchor, and neither is a compaction or a
	// refresh: only a delivered read of content starts trust.
	if _, err := f.svc.Read(context.Background(), ReadRequest{Session: "s", Target: "a.txt"}); err != nil {
		t.Fatal(err)
	}
	f.compact("s")
	f.refresh("s", "a.txt")
	f.expect("s", "a.txt", ModeFull)
}

func TestFreshnessSelectionSeqBetweenRangeAndFull(t *testing.T) {
	f := newFixture(t)
	v1 := lines(50, "v1")
	f.r.Write("a.txt", v1)
	f.expect("s", "a.txt", ModeFull)
	v2 := editLine(v1, 30, "thirty, second version")
	f.r.Write("a.txt", v2)
	f.expect("s", "a.txt:25-35", ModeBaselineFallback) // the newer view of 25-35 is v2
	f.expect("s", "a.txt:25-35", ModeUnchangedRange)
	f.expect("s", "a.txt:1-10", ModeUnchangedRange) // v1's lines 1-10 equal v2's
	f.expect("s", "a.txt", ModeBaselineFallback)    // mixed v1 and v2: no whole base
	f.expect("s", "a.txt", ModeUnchanged)
}

func TestRefreshInvalidationDurability(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(40, "v1"))
	f.expect("s", "a.txt", ModeFull)
	f.refresh("s", "a.txt")
	restart(f, "s")
	f.expect("s", "a.txt", ModeFull)
	f.expect("s", "a.txt", ModeUnchanged)
}

func TestRefreshFullAndRangeAndRangeBlockerUntilReanchored(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(100, "v1"))
	f.expect("s", "a.txt", ModeFull)
	f.refresh("s", "a.txt:40-50")
	f.expect("s", "a.txt:10-20", ModeUnchangedRange) // outside the refreshed range
	f.expect("s", "a.txt:45-48", ModeFull)           // inside: baseline
	f.expect("s", "a.txt", ModeBaselineFallback)     // the range blocks the whole file...
	f.refresh("s", "a.txt:40-50")
	f.expect("s", "a.txt:40-50", ModeFull) // ...until a range read re-anchors it
	f.expect("s", "a.txt", ModeUnchanged)
	f.refresh("s", "a.txt")
	f.expect("s", "a.txt:10-20", ModeFull)
}

func TestTreeNavigationIsolation(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(40, "v1"))
	f.r.Write("b.txt", lines(40, "v1"))
	base := f.expect("s", "a.txt", ModeFull).Entry
	f.expect("s", "b.txt", ModeFull) // on the first branch only
	f.checkout("s", base)
	f.expect("s", "b.txt", ModeFull) // the other branch's read is not on this path
	f.expect("s", "a.txt", ModeUnchanged)
}

func TestCompactionOnAnotherBranchDoesNotApply(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(40, "v1"))
	base := f.expect("s", "a.txt", ModeFull).Entry
	f.compact("s")
	f.checkout("s", base)
	f.expect("s", "a.txt", ModeUnchanged)
}

func TestForkIsolation(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(40, "v1"))
	f.r.Write("b.txt", lines(40, "v1"))
	f.expect("main", "a.txt", ModeFull)
	fork, err := f.svc.Fork(context.Background(), "main", 0, "side")
	if err != nil {
		t.Fatal(err)
	}
	f.expect(fork.Session, "a.txt", ModeUnchanged) // shares the path up to the fork
	f.expect(fork.Session, "b.txt", ModeFull)
	f.expect("main", "b.txt", ModeFull) // the fork's read is not main's
	f.compact(fork.Session)
	f.expect("main", "a.txt", ModeUnchanged) // nor its compaction
	f.expect(fork.Session, "a.txt", ModeFull)
	// Checking out an entry of another session's own branch is refused.
	sideEntry := f.expect(fork.Session, "a.txt", ModeUnchanged).Entry
	if _, err := f.svc.Checkout(context.Background(), "main", sideEntry); err == nil {
		t.Fatal("main checked out an entry of the fork's branch")
	}
}

// restart drops the stored trust of a session and rebuilds it from the
// entries, as a fresh process after a crash would have to.
func restart(f *fixture, session string) {
	f.t.Helper()
	f.svc.Store.DB().Exec(`DELETE FROM rc_trust WHERE session = ?`, session)
	st, err := f.svc.Status(context.Background(), session)
	if err != nil {
		f.t.Fatal(err)
	}
	f.checkout(session, st.Leaf)
}

func TestRestartRebuildsInvalidationAndBarriers(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(40, "v1"))
	f.r.Write("b.txt", lines(40, "v1"))
	f.r.Write("c.txt", lines(40, "v1"))
	f.expect("s", "a.txt", ModeFull)
	f.compact("s")
	f.expect("s", "b.txt", ModeFull)
	f.expect("s", "c.txt", ModeFull)
	f.refresh("s", "c.txt")
	restart(f, "s")
	f.expect("s", "a.txt", ModeFull)      // the barrier holds
	f.expect("s", "b.txt", ModeUnchanged) // post-barrier trust is back
	f.expect("s", "c.txt", ModeFull)      // the refresh holds
}
