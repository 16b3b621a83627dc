package readcache

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestEndedSessionsAreCollected: a connection's session ends when its
// server detaches; gc deletes it but keeps what a fork stands on, and the
// fork still answers right.
func TestEndedSessionsAreCollected(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.r.Write("a.txt", lines(40, "first"))
	f.r.Write("b.txt", lines(40, "other"))
	if err := f.svc.Attach(ctx, "conn", os.Getpid(), true); err != nil {
		t.Fatal(err)
	}
	f.expect("conn", "a.txt", ModeFull)
	if _, err := f.svc.Fork(ctx, "conn", 0, "side"); err != nil {
		t.Fatal(err)
	}
	f.expect("conn", "b.txt", ModeFull) // after the fork: only conn needs it

	if _, err := f.svc.Delete(ctx, "conn"); !errors.Is(err, ErrLive) {
		t.Fatalf("delete of a served session = %v, want ErrLive", err)
	}
	if res, err := f.svc.GC(ctx); err != nil || res.Sessions != 0 {
		t.Fatalf("gc while served: %+v, %v", res, err)
	}
	if err := f.svc.Detach(ctx, "conn"); err != nil {
		t.Fatal(err)
	}
	list, err := f.svc.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ended := map[string]bool{}
	for _, s := range list {
		ended[s.Name] = s.Ended
	}
	if !ended["conn"] || ended["side"] {
		t.Fatalf("sessions: %+v", list)
	}
	res, err := f.svc.GC(ctx)
	if err != nil || res.Sessions != 1 || res.Entries != 1 {
		t.Fatalf("gc = %+v, %v; want conn deleted with its one entry no fork needs", res, err)
	}
	f.expect("side", "a.txt", ModeUnchanged) // the fork still holds the read it was made from
	f.expect("side", "b.txt", ModeFull)
	if _, err := f.svc.Delete(ctx, "side"); err != nil {
		t.Fatal(err)
	}
	if list, _ := f.svc.Sessions(ctx); len(list) != 0 {
		t.Fatalf("sessions after deleting all: %+v", list)
	}
	var left int
	f.svc.Store.DB().QueryRow("SELECT count(*) FROM rc_entries").Scan(&left)
	if left != 0 {
		t.Fatalf("%d entries left after every session was deleted", left)
	}
}

// TestForkRefusesANameInUse: forking into a session that exists, the one
// forked included, is refused and leaves that session as it was; taking
// it over would move its leaf under whatever reads through it.
func TestForkRefusesANameInUse(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.r.Write("a.txt", lines(30, "a"))
	f.r.Write("b.txt", lines(30, "b"))
	f.read("s", "a.txt")
	f.read("other", "b.txt")
	for _, name := range []string{"other", "s"} {
		if _, err := f.svc.Fork(ctx, "s", 0, name); err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Errorf("fork into %q: err %v, want already exists", name, err)
		}
	}
	f.expect("other", "b.txt", ModeUnchanged)
	f.expect("s", "a.txt", ModeUnchanged)
}
