package readcache

import (
	"context"
	"testing"
)

func (f *fixture) revoke(res *ReadResult) {
	f.t.Helper()
	if err := f.svc.Revoke(context.Background(), res); err != nil {
		f.t.Fatal(err)
	}
}

func TestRevokedReadIsNotTrust(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.go", lines(50, "first"))
	first := f.expect("s", "a.go", ModeFull)
	f.revoke(first)
	f.expect("s", "a.go", ModeFull)
	f.expect("s", "a.go", ModeUnchanged)
}

// An unchanged or diff answer vouched for what an earlier read showed: when
// that read is taken back, they are too.
func TestRevokeTakesBackWhatLeanedOnIt(t *testing.T) {
	for _, tc := range []struct {
		name  string
		later func(f *fixture) *ReadResult
	}{
		{"unchanged", func(f *fixture) *ReadResult { return f.expect("s", "a.go", ModeUnchanged) }},
		{"diff", func(f *fixture) *ReadResult {
			f.r.Write("a.go", editLine(lines(300, "first"), 7, "an edit"))
			return f.expect("s", "a.go", ModeDiff)
		}},
		{"unchanged range", func(f *fixture) *ReadResult {
			res, err := f.svc.Read(context.Background(), ReadRequest{Session: "s", Target: "a.go", Offset: 10, Limit: 5})
			if err != nil || res.Mode != ModeUnchangedRange {
				f.t.Fatalf("range: %v %v", res, err)
			}
			if err := f.svc.Delivered(context.Background(), res); err != nil {
				f.t.Fatal(err)
			}
			return res
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.r.Write("a.go", lines(300, "first"))
			first := f.expect("s", "a.go", ModeFull)
			tc.later(f)
			f.revoke(first)
			f.expect("s", "a.go", ModeFull)
		})
	}
}

// A whole read after the revoked one showed the file itself: it stays
// trusted, in its session, and other sessions keep their own reads.
func TestRevokeKeepsWholeReadsAfterIt(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.go", lines(300, "first"))
	f.r.Write("b.go", lines(50, "other"))
	first := f.expect("s", "a.go", ModeFull)
	f.expect("t", "a.go", ModeFull)
	f.r.Write("a.go", editLine(lines(300, "first"), 9, "an edit"))
	f.expect("s", "a.go", ModeDiff)
	f.r.Write("a.go", lines(40, "third"))
	f.expect("s", "a.go", ModeBaselineFallback) // the whole file: the diff was larger
	f.expect("s", "b.go", ModeFull)
	f.revoke(first)
	f.expect("s", "a.go", ModeUnchanged)
	f.expect("s", "b.go", ModeUnchanged)
	f.r.Write("a.go", lines(300, "first"))
	f.expect("t", "a.go", ModeUnchanged)
}

// Another session's unchanged after the revoked read is taken back too:
// nothing tells which trust it leaned on, so that session's hold on the
// file is unknown from it on, and its next read is whole.
func TestRevokeInOtherSessions(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.go", lines(50, "first"))
	f.expect("t", "a.go", ModeFull)
	first := f.expect("s", "a.go", ModeFull)
	f.expect("t", "a.go", ModeUnchanged)
	f.revoke(first)
	f.expect("s", "a.go", ModeFull)
	f.expect("t", "a.go", ModeFull)
	f.expect("t", "a.go", ModeUnchanged)
}

// A diff after the revoked read moved the model to a new version, or
// showed it nothing it could use: either way the picture is erased, not
// rolled back to the version before the diff (the next diff would start
// from text the model may no longer hold).
func TestRevokeDoesNotRollBackADiff(t *testing.T) {
	f := newFixture(t)
	v1 := lines(300, "first")
	f.r.Write("a.go", v1)
	f.expect("s", "a.go", ModeFull)
	first := f.expect("s", "a.go", ModeUnchanged)
	v2 := editLine(v1, 7, "an edit")
	f.r.Write("a.go", v2)
	f.expect("s", "a.go", ModeDiff)
	f.revoke(first)
	v3 := editLine(v2, 9, "another edit")
	f.r.Write("a.go", v3)
	f.expect("s", "a.go", ModeFull)
}

func TestRevokeOfAGoneEntry(t *testing.T) {
	f := newFixture(t)
	f.revoke(&ReadResult{Entry: 12345})
}

// An answer made before the read it leaned on was taken back, and
// delivered after, does not bring the trust back.
func TestAnswerDeliveredAfterTheRevokeDoesNotTrust(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.go", lines(50, "first"))
	first := f.expect("s", "a.go", ModeFull)
	ctx := context.Background()
	inFlight, err := f.svc.Read(ctx, ReadRequest{Session: "s", Target: "a.go"})
	if err != nil || inFlight.Mode != ModeUnchanged {
		t.Fatalf("second read: %v %v", inFlight, err)
	}
	f.revoke(first)
	if err := f.svc.Delivered(ctx, inFlight); err != nil {
		t.Fatal(err)
	}
	f.expect("s", "a.go", ModeFull)
}
