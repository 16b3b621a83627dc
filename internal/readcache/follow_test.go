package readcache

import (
	"context"
	"testing"
)

// keyed reads as a client that names its tool calls does, and delivers.
func (f *fixture) keyed(session, target, key string) *ReadResult {
	f.t.Helper()
	res, err := f.svc.Read(context.Background(), ReadRequest{Session: session, Target: target, ClientKey: key})
	if err != nil {
		f.t.Fatalf("read %s: %v", target, err)
	}
	if err := f.svc.Delivered(context.Background(), res); err != nil {
		f.t.Fatal(err)
	}
	return res
}

func (f *fixture) follow(session, from, key string) int64 {
	f.t.Helper()
	leaf, err := f.svc.Follow(context.Background(), session, from, key)
	if err != nil {
		f.t.Fatalf("follow %s %s %q: %v", session, from, key, err)
	}
	return leaf
}

// TestFollowGoesWhereTheClientsTreeIs: the session follows the point of
// the client's tree the client names — back along its branch, to a fork,
// to nothing after a compaction — and each read then answers from what
// the model holds there.
func TestFollowGoesWhereTheClientsTreeIs(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(40, "first"))
	f.follow("pi-1", "pi-1", "")
	first := f.keyed("pi-1", "a.txt", "call-1")
	if first.Mode != ModeFull {
		t.Fatalf("first read: %s", first.Mode)
	}
	f.r.Write("a.txt", lines(40, "second"))
	if leaf := f.follow("pi-1", "pi-1", "call-1"); leaf != first.Entry {
		t.Fatalf("leaf %d, want the first read's %d", leaf, first.Entry)
	}
	second := f.keyed("pi-1", "a.txt", "call-2")
	if second.Mode == ModeUnchanged {
		t.Fatal("unchanged after the file changed")
	}

	// Back to the first read's point: the model there holds the first
	// version, which the file is again.
	f.r.Write("a.txt", lines(40, "first"))
	f.follow("pi-1", "pi-1", "call-1")
	if res := f.keyed("pi-1", "a.txt", "call-3"); res.Mode != ModeUnchanged {
		t.Fatalf("at the first read's point: %s (%s), want unchanged", res.Mode, res.Reason)
	}
	// At the second read's point the model holds the second version.
	f.follow("pi-1", "pi-1", "call-2")
	if res := f.keyed("pi-1", "a.txt", "call-4"); res.Mode == ModeUnchanged {
		t.Fatal("unchanged at the point where the model holds the second version")
	}

	// A fork at the first read: a new session sharing that path.
	f.follow("pi-2", "pi-1", "call-1")
	if res := f.keyed("pi-2", "a.txt", "call-5"); res.Mode != ModeUnchanged {
		t.Fatalf("fork at the first read: %s, want unchanged", res.Mode)
	}

	// Nothing named (a compaction, a new branch): a barrier, once.
	leaf := f.follow("pi-1", "pi-1", "")
	if again := f.follow("pi-1", "pi-1", ""); again != leaf {
		t.Fatalf("a second barrier: %d after %d", again, leaf)
	}
	if res := f.keyed("pi-1", "a.txt", "call-6"); res.Mode != ModeFull && res.Mode != ModeBaselineFallback {
		t.Fatalf("after a barrier: %s", res.Mode)
	}
}

// TestFollowNeverTrustsWhatItCannotPlace: a key freshctx does not know (a
// store made anew), or one of a session whose tree this one is not on,
// leaves nothing trusted.
func TestFollowNeverTrustsWhatItCannotPlace(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(40, "first"))
	f.keyed("pi-1", "a.txt", "call-1")
	f.keyed("other", "a.txt", "call-9")
	for _, c := range []struct{ from, key string }{
		{"pi-1", "no-such-call"},
		{"other", "call-9"}, // not on pi-1's tree
		{"pi-1", "call-9"},  // a key of another session
	} {
		f.keyed("pi-1", "a.txt", "again") // the model holds it now
		f.follow("pi-1", c.from, c.key)
		if res := f.keyed("pi-1", "a.txt", "next"); res.Mode == ModeUnchanged || res.Mode == ModeDiff {
			t.Fatalf("follow %s/%s: %s, want content", c.from, c.key, res.Mode)
		}
	}
	// A new session named from an unknown key starts empty.
	f.follow("pi-3", "pi-9", "call-1")
	if res := f.keyed("pi-3", "a.txt", "x"); res.Mode != ModeFull {
		t.Fatalf("a session from an unknown key: %s", res.Mode)
	}
}
