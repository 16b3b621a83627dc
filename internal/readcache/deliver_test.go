package readcache

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/testrace"
	"github.com/freshctx/freshctx/internal/teststore"
)

// trustRows is a session's trust as stored: its pictures by path.
func trustRows(ctx context.Context, tx *store.Tx, session string) (map[string]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT path, views FROM rc_trust WHERE session = ?`, session)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var p, v string
		if err := rows.Scan(&p, &v); err != nil {
			return nil, err
		}
		out[p] = v
	}
	return out, rows.Err()
}

var errRollBack = errors.New("roll back")

// fataler is what trustIsReplay needs of a test: a *testing.T or a rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// trustIsReplay fails unless the session's stored trust is what replaying
// its path gives (rebuild, the reference), which it tries in a
// transaction it then rolls back.
func trustIsReplay(t fataler, svc *Service, session string) {
	t.Helper()
	ctx := context.Background()
	var kept, replayed map[string]string
	err := svc.Store.Update(ctx, func(tx *store.Tx) error {
		var leaf int64
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(leaf, 0) FROM rc_sessions WHERE name = ?`, session).Scan(&leaf); err != nil {
			return err
		}
		var err error
		if kept, err = trustRows(ctx, tx, session); err != nil {
			return err
		}
		if err := rebuild(ctx, tx, session, leaf); err != nil {
			return err
		}
		if replayed, err = trustRows(ctx, tx, session); err != nil {
			return err
		}
		return errRollBack
	})
	if !errors.Is(err, errRollBack) {
		t.Fatal(err)
	}
	if !maps.Equal(kept, replayed) {
		t.Fatalf("trust kept differs from the replay of the session:\nkept     %v\nreplayed %v", kept, replayed)
	}
}

func (f *fixture) undelivered(session, target string) *ReadResult {
	f.t.Helper()
	res, err := f.svc.Read(context.Background(), ReadRequest{Session: session, Target: target})
	if err != nil {
		f.t.Fatalf("read %s: %v", target, err)
	}
	return res
}

func (f *fixture) deliver(res *ReadResult) {
	f.t.Helper()
	if err := f.svc.Delivered(context.Background(), res); err != nil {
		f.t.Fatal(err)
	}
}

// deliverReplaying delivers res and fails unless the delivery replayed
// the session once and left the trust the replay gives.
func (f *fixture) deliverReplaying(t *testing.T, res *ReadResult, session string) {
	t.Helper()
	before := rebuilds.Load()
	f.deliver(res)
	if n := rebuilds.Load() - before; n != 1 {
		t.Fatalf("%d replays, want 1", n)
	}
	trustIsReplay(t, f.svc, session)
}

// TestParallelReadsDoNotReplay: reads made before an earlier one is
// delivered, of other files or of the same file still waiting for their
// own delivery (a read waiting paints nothing), leave its delivery the one
// a read in order gets (no replay); the trust kept is the replay's, and
// answers lean on it.
func TestParallelReadsDoNotReplay(t *testing.T) {
	type answer struct{ target, mode string }
	for _, c := range []struct {
		name  string
		reads []string // made at once
		order []int    // the order they are delivered in
		then  []answer // reads after, and their answers
	}{
		{"of three files, out of order", []string{"a.txt:3-9", "b.txt", "c.txt:1-5"}, []int{0, 2, 1},
			[]answer{{"b.txt", ModeUnchanged}, {"c.txt:2-4", ModeUnchangedRange}}},
		{"of one file, in order", []string{"a.txt:1-10", "a.txt:11-20"}, []int{0, 1},
			[]answer{{"a.txt:5-15", ModeUnchangedRange}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			for _, p := range []string{"a.txt", "b.txt", "c.txt"} {
				f.r.Write(p, lines(30, p))
			}
			before := rebuilds.Load()
			var made []*ReadResult
			for _, target := range c.reads {
				made = append(made, f.undelivered("s", target))
			}
			for _, i := range c.order {
				f.deliver(made[i])
			}
			if n := rebuilds.Load() - before; n != 0 {
				t.Fatalf("%d replays", n)
			}
			trustIsReplay(t, f.svc, "s")
			for _, a := range c.then {
				f.expect("s", a.target, a.mode)
			}
		})
	}
}

// TestDeliveryReplaysWhereTheEntriesSinceBear: a read of the same file
// delivered or taken back since, a refresh of it or a compaction since,
// or a leaf moved off the read's path leave the delivery to the replay.
func TestDeliveryReplaysWhereTheEntriesSinceBear(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", lines(30, "a"))
	f.r.Write("b.txt", lines(30, "b"))
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		between func(t *testing.T)
	}{
		{"the same file read and delivered since", func(*testing.T) { f.read("s", "a.txt:10-20") }},
		{"the same file refreshed since", func(t *testing.T) {
			if _, err := f.svc.Refresh(ctx, "s", "a.txt:1-4"); err != nil {
				t.Fatal(err)
			}
		}},
		{"a compaction since", func(t *testing.T) {
			if _, err := f.svc.Compact(ctx, "s"); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := f.undelivered("s", "a.txt")
			f.undelivered("s", "b.txt")
			c.between(t)
			f.deliverReplaying(t, res, "s")
		})
	}
	t.Run("a read of it since that a revoke took back", func(t *testing.T) {
		leaned := f.read("r", "a.txt:1-5")
		res := f.undelivered("r", "a.txt:20-25") // lines not held: shown
		since := f.undelivered("r", "a.txt:1-5")
		if since.Mode != ModeUnchangedRange {
			t.Fatalf("read again: %s, want %s", since.Mode, ModeUnchangedRange)
		}
		f.revoke(leaned) // and the answer since, which leaned on it
		f.deliverReplaying(t, res, "r")
	})
	t.Run("the leaf checked out elsewhere", func(t *testing.T) {
		root := f.read("s", "b.txt")
		res := f.undelivered("s", "a.txt")
		if _, err := f.svc.Checkout(ctx, "s", root.Entry); err != nil {
			t.Fatal(err)
		}
		f.undelivered("s", "b.txt:1-3")
		f.deliverReplaying(t, res, "s")
	})
}

// TestDeliveryInAnyOrderKeepsTheReplaysTrust is model-based: reads of a
// few files (whole and ranges) are made and delivered in any order, files
// change, ranges are refreshed, the model edits a file, the session is
// compacted, a client takes a read back (delivered or not); after every delivery the trust kept is the replay of the
// session's path, the reference every answer is judged by.
func TestDeliveryInAnyOrderKeepsTheReplaysTrust(t *testing.T) {
	testrace.Skip(t, "steps reads and deliveries on one goroutine")
	rapid.Check(t, func(rt *rapid.T) {
		r := testgit.Plain(rt, t.TempDir())
		st := teststore.Open(t, "", store.Options{})
		svc := &Service{WS: teststore.Workspace(t, r.Dir), Store: st, Cwd: r.Dir, TokensLater: rapid.Bool().Draw(rt, "later")}
		ctx := context.Background()
		files := []string{"a.txt", "b.txt"}
		for _, p := range files {
			r.Write(p, lines(12, p))
		}
		var pending, delivered []*ReadResult
		for step := range rapid.IntRange(1, 40).Draw(rt, "steps") {
			p := rapid.SampledFrom(files).Draw(rt, "file")
			switch rapid.SampledFrom([]string{"read", "read", "read", "deliver", "deliver", "deliver", "change", "refresh", "edited", "compact", "revoke", "revoke"}).Draw(rt, "op") {
			case "read":
				target := p
				if rapid.Bool().Draw(rt, "range") {
					start := rapid.IntRange(1, 12).Draw(rt, "start")
					target = fmt.Sprintf("%s:%d-%d", p, start, start+rapid.IntRange(0, 6).Draw(rt, "len"))
				}
				res, err := svc.Read(ctx, ReadRequest{Session: "s", Target: target})
				if err == nil {
					pending = append(pending, res)
				}
			case "deliver":
				if len(pending) == 0 {
					continue
				}
				i := rapid.IntRange(0, len(pending)-1).Draw(rt, "which")
				res := pending[i]
				pending = slices.Delete(pending, i, i+1)
				if err := svc.Delivered(ctx, res); err != nil {
					rt.Fatal(err)
				}
				delivered = append(delivered, res)
				trustIsReplay(rt, svc, "s")
			case "revoke": // a client cancelled a call after its answer went out
				all := append(slices.Clone(delivered), pending...)
				if len(all) == 0 {
					continue
				}
				if err := svc.Revoke(ctx, all[rapid.IntRange(0, len(all)-1).Draw(rt, "revoked")]); err != nil {
					rt.Fatal(err)
				}
				trustIsReplay(rt, svc, "s")
			case "change":
				r.Write(p, lines(rapid.IntRange(8, 14).Draw(rt, "lines"), fmt.Sprintf("%s-%d", p, step)))
			case "refresh":
				if _, err := svc.Refresh(ctx, "s", fmt.Sprintf("%s:%d-%d", p, 2, 5)); err != nil {
					rt.Fatal(err)
				}
			case "edited":
				if err := svc.Edited(ctx, "s", p); err != nil {
					rt.Fatal(err)
				}
			case "compact":
				if _, err := svc.Compact(ctx, "s"); err != nil {
					rt.Fatal(err)
				}
			}
		}
		for _, res := range pending {
			if err := svc.Delivered(ctx, res); err != nil {
				rt.Fatal(err)
			}
			trustIsReplay(rt, svc, "s")
		}
	})
}

// TestAChangeBeforeTheDeliveryStands: the model's own edit of a file, or a
// read of it the read cache cannot vouch for (Forget), that comes while a
// read of the file waits for its delivery (parallel tool calls) came after
// that read: once the read is delivered, the model still believes its
// edit, or holds what nobody can vouch for, and a read of the file as it
// was shown is not answered unchanged. So with another read made
// meanwhile (the delivery after it) and without (the change the leaf).
func TestAChangeBeforeTheDeliveryStands(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		change func(f *fixture) error
		beside bool // another read made before the change
	}{
		{"an edit", func(f *fixture) error { return f.svc.Edited(ctx, "s", "a.txt") }, true},
		{"an edit, no other read", func(f *fixture) error { return f.svc.Edited(ctx, "s", "a.txt") }, false},
		{"a read nobody can vouch for", func(f *fixture) error { return f.svc.Forget(ctx, "s", "a.txt") }, true},
		{"a read nobody can vouch for, no other read", func(f *fixture) error { return f.svc.Forget(ctx, "s", "a.txt") }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			a := lines(30, "a")
			f.r.Write("a.txt", a)
			f.r.Write("b.txt", lines(30, "b"))
			res := f.undelivered("s", "a.txt")
			if c.beside {
				f.undelivered("s", "b.txt")
			}
			f.r.Write("a.txt", strings.Replace(a, "line 7", "line seven", 1))
			if err := c.change(f); err != nil {
				t.Fatal(err)
			}
			f.deliver(res)
			trustIsReplay(t, f.svc, "s")
			f.r.Write("a.txt", a) // back to what the model was shown
			f.expect("s", "a.txt", ModeFull)
			f.expect("s", "a.txt", ModeUnchanged)
		})
	}
}

// TestAForkForgetsReadsStillWaiting: a fork taken while a read waits for
// its delivery cannot tell whether the read reached the model before the
// fork was taken. Before forks forgot such files, the read's delivery
// painted only its own session's picture, so an edit the model made in the
// fork found no picture there and left no entry, while a later replay of
// the fork's path (here the revoke of a read of another file) painted the
// read back in: the file put back as the read showed it was answered
// `unchanged` in the fork, though the model there believed its edit.
func TestAForkForgetsReadsStillWaiting(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	a := lines(30, "a")
	f.r.Write("a.txt", a)
	f.r.Write("b.txt", lines(30, "b"))
	res := f.undelivered("s", "a.txt")
	fork, err := f.svc.Fork(ctx, "s", res.Entry, "f")
	if err != nil {
		t.Fatal(err)
	}
	if fork.Leaf == res.Entry {
		t.Fatalf("the fork's leaf is the waiting read (entry %d): nothing forgets its file", res.Entry)
	}
	f.deliver(res)
	f.r.Write("a.txt", strings.Replace(a, "line 7", "line seven", 1))
	if err := f.svc.Edited(ctx, "f", "a.txt"); err != nil {
		t.Fatal(err)
	}
	other := f.read("f", "b.txt")
	if err := f.svc.Revoke(ctx, other); err != nil { // replays the fork's path
		t.Fatal(err)
	}
	trustIsReplay(t, f.svc, "f")
	f.r.Write("a.txt", a) // back to what the waiting read showed
	f.expect("f", "a.txt", ModeFull)
	f.expect("f", "a.txt", ModeUnchanged)
	f.expect("s", "a.txt", ModeUnchanged) // the session the read was made in holds it
}
