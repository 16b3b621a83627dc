package readcache

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testbench"
	"github.com/freshctx/freshctx/internal/teststore"
)

// keepNotes appends entries to session, the i-th (from 1) keeping the
// note "NOTE i" with count i, or -1 (not counted) where i is a multiple
// of uncountedEvery; 0 means none is.
func keepNotes(tb testing.TB, st *store.Store, session, note string, entries, uncountedEvery int) {
	tb.Helper()
	ctx := context.Background()
	err := st.Update(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
			INSERT INTO rc_entries (session, depth, kind, path, mode, tokens_served, created_at, served_text)
			SELECT ?, i, 'read', 'f.go', 'unchanged',
				CASE WHEN ? > 0 AND i % ? = 0 THEN -1 ELSE i END, 0, ? || ' ' || i FROM k`,
			entries, session, uncountedEvery, uncountedEvery, note)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
}

func lookUp(t *testing.T, st *store.Store, session, text string) (n int, ok bool) {
	t.Helper()
	ctx := context.Background()
	if err := st.View(ctx, func(tx *store.Tx) error {
		n, ok = keptCount(ctx, tx, session, text)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n, ok
}

// TestKeptCountFindsTheLatestCounted: the count kept with a note is the
// one of its newest entry in that session that was counted; a note of
// another session, a note never kept and the empty text find none.
func TestKeptCountFindsTheLatestCounted(t *testing.T) {
	st := teststore.Open(t, "", store.Options{})
	keepNotes(t, st, "a", "note", 20, 5)
	keepNotes(t, st, "b", "other", 3, 0)
	// The same note kept again later, with other counts.
	keepNotes(t, st, "a", "note", 7, 0)
	for _, c := range []struct {
		session, text string
		want          int
		found         bool
	}{
		{"a", "note 7", 7, true},   // kept twice: the newest entry's count
		{"a", "note 12", 12, true}, // kept once
		{"a", "note 15", 0, false}, // kept uncounted
		{"a", "note 21", 0, false}, // never kept
		{"a", "other 2", 0, false}, // kept in another session
		{"b", "other 2", 2, true},
		{"a", "", 0, false},
		{"c", "note 7", 0, false},
	} {
		n, ok := lookUp(t, st, c.session, c.text)
		if n != c.want || ok != c.found {
			t.Errorf("keptCount(%q, %q) = %d, %v; want %d, %v", c.session, c.text, n, ok, c.want, c.found)
		}
	}
}

// TestKeptCountSearchesItsIndex: the lookup reads the index of kept texts,
// not the session's entries one by one, and needs no sort for its order;
// the index holds counted entries only, so the first it finds is the
// answer (a note kept uncounted with every read of a file would otherwise
// be read row by row before it).
func TestKeptCountSearchesItsIndex(t *testing.T) {
	got := queryPlan(t, keptCountQuery, "s", "note")
	if !strings.Contains(got, "USING INDEX rc_entries_served (session=? AND served_text=?)") || strings.Contains(got, "TEMP B-TREE") {
		t.Errorf("keptCount's plan: %s", got)
	}
	st := teststore.Open(t, "", store.Options{})
	var def string
	if err := st.DB().QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'rc_entries_served'`).Scan(&def); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(def, "tokens_served >= 0") {
		t.Errorf("the index of kept texts holds uncounted entries: %s", def)
	}
}

// TestReadWaitingSearchesItsIndex: whether a read of a file waits for its
// delivery, which an edit of a file without a picture asks, is found
// through the index of waiting reads, not a walk of the session.
func TestReadWaitingSearchesItsIndex(t *testing.T) {
	got := queryPlan(t, readWaitingQuery, "s", "a.txt")
	if !strings.Contains(got, "USING INDEX rc_entries_pending (session=? AND path=?)") {
		t.Errorf("readWaiting's plan: %s", got)
	}
}

// queryPlan is SQLite's plan for query in a new store, its steps joined.
func queryPlan(t *testing.T, query string, args ...any) string {
	t.Helper()
	st := teststore.Open(t, "", store.Options{})
	ctx := context.Background()
	var plan []string
	err := st.View(ctx, func(tx *store.Tx) error {
		rows, err := tx.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				return err
			}
			plan = append(plan, detail)
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "; ")
}

// keepSame appends entries to session that all kept text: the first
// counted (count 1), the rest not counted, as a note chosen again and again
// against the text's bound is kept.
func keepSame(tb testing.TB, st *store.Store, session, text string, entries int) {
	tb.Helper()
	ctx := context.Background()
	err := st.Update(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
			INSERT INTO rc_entries (session, depth, kind, path, mode, tokens_served, created_at, served_text)
			SELECT ?, i, 'read', 'f.go', 'unchanged', CASE WHEN i = 1 THEN 1 ELSE -1 END, 0, ? FROM k`,
			entries, session, text)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// TestKeptCountPassesUncountedEntries: a note kept counted once and then
// many times uncounted is found with its count.
func TestKeptCountPassesUncountedEntries(t *testing.T) {
	st := teststore.Open(t, "", store.Options{})
	keepSame(t, st, "a", "[unchanged: f.go, all 9 lines as you last read them]", 50)
	keepNotes(t, st, "a", "other", 3, 0)
	if n, ok := lookUp(t, st, "a", "[unchanged: f.go, all 9 lines as you last read them]"); n != 1 || !ok {
		t.Errorf("keptCount = %d, %v; want 1, true", n, ok)
	}
}

// BenchmarkNoteLookup looks up the count kept for a note in sessions of
// 10 entries and, in turn, of 10,000 (1,000 with -short): a note never
// served (what choosing a note for a first unchanged answer asks) where
// each entry kept a note of its own ("long"), and a note served at every
// entry, counted at the first only, as an unchanged file read again and
// again keeps its note ("again"). It reports ms a lookup at each and the
// ratios to the short session. Before the index of kept texts the first
// lookup read every entry of the session; before the index held only
// counted entries the second did.
func BenchmarkNoteLookup(b *testing.B) {
	st := teststore.Open(b, "", store.Options{})
	n := 10_000
	if testing.Short() {
		n = 1_000
	}
	const again = "[unchanged: src/service.go, all 40 lines as you last read them]"
	keepNotes(b, st, "short", "src/service.go: lines 1-40 unchanged since your read of entry", 10, 0)
	keepNotes(b, st, "long", "src/service.go: lines 1-40 unchanged since your read of entry", n, 0)
	keepSame(b, st, "again", again, n)
	ctx := context.Background()
	lookups := []struct {
		session, text string
		found         bool
	}{
		{"short", "src/service.go: lines 41-80 unchanged since your read", false},
		{"long", "src/service.go: lines 41-80 unchanged since your read", false},
		{"again", again, true},
	}
	times := map[string][]time.Duration{}
	for b.Loop() {
		for _, l := range lookups {
			err := st.View(ctx, func(tx *store.Tx) error {
				start := time.Now()
				if _, ok := keptCount(ctx, tx, l.session, l.text); ok != l.found {
					b.Fatalf("keptCount(%q) found %v, want %v", l.session, ok, l.found)
				}
				times[l.session] = append(times[l.session], time.Since(start))
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	short, long, same := testbench.Median(times["short"]), testbench.Median(times["long"]), testbench.Median(times["again"])
	testbench.MS(b, short, "ms_at_10")
	testbench.MS(b, long, fmt.Sprintf("ms_at_%d", n))
	testbench.MS(b, same, fmt.Sprintf("ms_again_at_%d", n))
	b.ReportMetric(float64(long)/float64(short), "x_long_vs_short")
	b.ReportMetric(float64(same)/float64(short), "x_again_vs_short")
}
