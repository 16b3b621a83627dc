package registry

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testrace"
)

// TestScanIndexFormat: the scan index is kept in stores between versions;
// its bytes are, per row, the path and the fingerprint each as a length and
// the bytes, the time as a signed varint and a byte for watched. A value
// written so reads back, and one cut inside a row is an error.
func TestScanIndexFormat(t *testing.T) {
	want := []stored{{path: "a.go", fp: "1:2:3:4:5:420", at: -7, watched: true}, {path: "dir/é.go", at: 1 << 40}}
	var b []byte
	for _, r := range want {
		b = binary.AppendUvarint(b, uint64(len(r.path)))
		b = append(b, r.path...)
		b = binary.AppendUvarint(b, uint64(len(r.fp)))
		b = append(b, r.fp...)
		b = binary.AppendVarint(b, r.at)
		if r.watched {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	got, err := decodeScan(store.Pack(b))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read %+v, %v; want %+v", got, err, want)
	}
	if again, err := decodeScan(encodeScan(want)); err != nil || !reflect.DeepEqual(again, want) {
		t.Fatalf("round trip %+v, %v", again, err)
	}
	for i := 1; i < len(b); i++ {
		if got, err := decodeScan(store.Pack(b[:i])); err == nil && len(got) != 0 && i != firstRowLen(want[0]) {
			t.Fatalf("cut to %d bytes: read %+v without an error", i, got)
		}
	}
}

func firstRowLen(r stored) int {
	n := len(binary.AppendUvarint(nil, uint64(len(r.path)))) + len(r.path)
	n += len(binary.AppendUvarint(nil, uint64(len(r.fp)))) + len(r.fp)
	n += len(binary.AppendVarint(nil, r.at)) + 1
	return n
}

// TestScanIndexPatchedIsTheRows: after every change a registry goes
// through (files written, removed and committed, summaries, syncs and
// applied verifies), the scan index as a reader takes it — current, or of
// an earlier gen patched with the paths written since; decoded whole, and
// as a scan feeds it to the workers — holds exactly the rows and watched
// paths the tables hold.
func TestScanIndexPatchedIsTheRows(t *testing.T) {
	testrace.Skip(t, "steps a repository and the index on one goroutine")
	ctx := context.Background()
	for seed := range uint64(3) {
		rnd := rand.New(rand.NewPCG(seed, 46))
		f := newFixture(t, project(t))
		f.sync()
		f.sync() // the index exists from here on
		patched := 0
		for step := range 40 {
			name := fmt.Sprintf("pkg%d/f%d.go", rnd.IntN(3), rnd.IntN(6))
			switch rnd.IntN(6) {
			case 0, 1:
				f.r.Write(name, fmt.Sprintf("package pkg\n// %d %d\n", seed, step))
			case 2:
				if _, err := os.Stat(f.r.Path(name)); err == nil {
					f.r.Remove(name)
				}
			case 3:
				f.r.Git("add", "-A")
				f.r.Commit(fmt.Sprintf("step %d", step))
			case 4:
				if f.has(name) {
					f.summarize(name, fmt.Sprintf("summary %d", step))
				}
			case 5:
				if _, err := f.svc.Verify(ctx, rnd.IntN(2) == 0); err != nil {
					t.Fatal(err)
				}
			}
			f.sync()
			err := f.svc.Store.View(ctx, func(tx *store.Tx) error {
				var have, gen int64
				tx.QueryRowContext(ctx, `SELECT s.gen, g.gen FROM registry_scan s JOIN registry_gen g USING (root) WHERE root = ?`,
					f.svc.WS.Root).Scan(&have, &gen)
				all, _, ok, err := loadScan(ctx, tx, f.svc.WS.Root)
				if err != nil || !ok {
					return fmt.Errorf("no index to go by (%v)", err)
				}
				if have != gen {
					patched++
				}
				var rows []stored
				for _, q := range []string{`SELECT path, fp, fp_at, 0 FROM registry_files WHERE root = ?`,
					`SELECT path, fp, fp_at, 1 FROM registry_gone WHERE root = ?`} {
					if rows, err = appendRows(ctx, tx, q, []any{f.svc.WS.Root}, rows); err != nil {
						return err
					}
				}
				byPath := func(a, b stored) int {
					return cmp.Or(strings.Compare(a.path, b.path), cmp.Compare(fmt.Sprint(a.watched), fmt.Sprint(b.watched)))
				}
				slices.SortFunc(all, byPath)
				slices.SortFunc(rows, byPath)
				if !slices.Equal(all, rows) {
					return fmt.Errorf("step %d: the index holds\n%v\nthe tables\n%v", step, all, rows)
				}
				return nil
			})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			// The same index as a scan streams it (or decodes it whole,
			// when many paths behind).
			got, _, fed := fedRows(t, f.svc)
			if want := tableRows(t, f.svc); fed.badStream || !slices.Equal(sortedRows(got), sortedRows(want)) {
				t.Fatalf("seed %d step %d: the scan fed (bad stream %v)\n%v\nthe tables hold\n%v", seed, step, fed.badStream, got, want)
			}
		}
		if patched == 0 {
			t.Fatalf("seed %d: no step read a patched index", seed)
		}
	}
}

// TestScanIndexNotSavedOverAWrite: an index read before a write is not
// saved after it (the write's path would be in neither it nor the delta
// the triggers keep only while an index exists), and a saved index drops
// the delta's names it holds.
func TestScanIndexNotSavedOverAWrite(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, project(t))
	f.sync()
	f.sync()
	db := f.svc.Store.DB()
	var all []stored
	var gen int64
	err := f.svc.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		all, gen, _, err = loadScan(ctx, tx, f.svc.WS.Root)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	f.summarize("main.go", "The entry point.") // a write after the read
	if err := f.svc.saveScan(ctx, gen, all); err != nil {
		t.Fatal(err)
	}
	var saved, deltas int64
	db.QueryRow(`SELECT gen FROM registry_scan`).Scan(&saved)
	db.QueryRow(`SELECT count(*) FROM registry_scan_delta WHERE gen > ?`, saved).Scan(&deltas)
	if saved > gen || deltas == 0 {
		t.Fatalf("index saved at %d over a write after %d; %d delta names past it", saved, gen, deltas)
	}
	f.r.Write("main.go", "package main\n\nfunc main() { println() }\n")
	f.sync()
	f.svc.Store.Update(ctx, func(tx *store.Tx) error { // let the next reader rebuild
		_, err := tx.ExecContext(ctx, `DELETE FROM registry_scan`)
		return err
	})
	f.sync()
	db.QueryRow(`SELECT gen FROM registry_scan`).Scan(&saved)
	db.QueryRow(`SELECT count(*) FROM registry_scan_delta WHERE gen <= ?`, saved).Scan(&deltas)
	if deltas != 0 {
		t.Fatalf("%d delta names the index saved at %d already holds", deltas, saved)
	}
}
