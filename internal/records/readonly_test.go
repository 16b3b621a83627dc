package records

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/teststore"
)

// TestCheckInAStoreThatCannotBeWritten: a record whose file was touched
// but not changed is fresh, and one whose file changed is stale, when the
// store is on a read-only mount. Telling the two apart hashes the file,
// and the stat cache entry that hash makes cannot be saved there: the
// answer stands without it (it failed on the cache's save before).
func TestCheckInAStoreThatCannotBeWritten(t *testing.T) {
	ctx := context.Background()
	base, r := newService(t)
	st, readOnly := teststore.OnAMount(t, store.Options{})
	s := &Service{WS: base.WS, Store: st, Cwd: r.Dir, RacyWindow: time.Nanosecond}
	touched := keep(t, s, "pkg/calc.go:3: want 3, got -1\n")
	changed := keep(t, s, "pkg/calc_test.go:1: no tests\n")
	before := statCache(t, st)
	ro := readOnly()
	s = &Service{WS: base.WS, Store: ro, Cwd: r.Dir, RacyWindow: time.Nanosecond}

	// A time of its own, an hour back: the stat differs from the stamp's,
	// and the hash that settles it makes an entry worth keeping.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(r.Dir, "pkg/calc.go"), old, old); err != nil {
		t.Fatal(err)
	}
	r.Write("pkg/calc_test.go", "package pkg // changed\n")
	for _, c := range []struct {
		id   int64
		want freshness.Label
	}{{touched.ID, freshness.Fresh}, {changed.ID, freshness.StaleChanged}} {
		for range 2 { // and again: nothing was kept of the first
			rec, err := s.Show(ctx, c.id)
			if err != nil {
				t.Fatalf("show %d: %v", c.id, err)
			}
			if got := rec.Freshness.Label; got != c.want {
				t.Fatalf("show %d = %s, want %s (%+v)", c.id, got, c.want, rec.Freshness.Files)
			}
		}
	}
	if after := statCache(t, ro); !maps.Equal(after, before) {
		t.Fatalf("the stat cache of a store that cannot be written went from %v to %v", before, after)
	}
}

// statCache is the stat cache's fingerprint of each path.
func statCache(t *testing.T, st *store.Store) map[string]string {
	t.Helper()
	rows, err := st.DB().Query(`SELECT path, fp FROM stat_cache`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var p, fp string
		if err := rows.Scan(&p, &fp); err != nil {
			t.Fatal(err)
		}
		out[p] = fp
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
