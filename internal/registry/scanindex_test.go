package registry

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
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

// TestScanBytesSized: the buffer scanBytes makes at the size it reckons
// is filled exactly, with the bytes appending to a grown one gives, for
// rows of every length of varint.
func TestScanBytesSized(t *testing.T) {
	var all []stored
	for _, n := range []int{0, 1, 127, 128, 16383, 16384, 1 << 21} {
		all = append(all, stored{path: strings.Repeat("p", n), fp: strings.Repeat("f", n%300), at: int64(n)},
			stored{path: "a", at: -int64(n) - 1, watched: true}, stored{at: math.MaxInt64}, stored{at: math.MinInt64})
	}
	for i := range len(all) + 1 {
		got, want := scanBytes(all[:i]), grownScanBytes(all[:i])
		if len(got) != cap(got) || !bytes.Equal(got, want) {
			t.Fatalf("%d rows: %d bytes in a buffer of %d; appending gives %d", i, len(got), cap(got), len(want))
		}
	}
}

// grownScanBytes is scanBytes as it was, appending to a buffer grown as
// it fills: what the sized one must equal, and its benchmark's baseline.
func grownScanBytes(all []stored) []byte { return appendScan(nil, all) }

func firstRowLen(r stored) int {
	n := len(binary.AppendUvarint(nil, uint64(len(r.path)))) + len(r.path)
	n += len(binary.AppendUvarint(nil, uint64(len(r.fp)))) + len(r.fp)
	n += len(binary.AppendVarint(nil, r.at)) + 1
	return n
}

// TestScanIndexPatchedIsTheRows: after every change a registry goes
// through (files written, removed and committed, summaries, syncs,
// verifies applied or not, and looks), the scan index as a reader takes it
// — current, or of an earlier gen patched with the paths written since;
// decoded whole, and as a scan feeds it to the workers, a writer's or a
// look's — holds exactly the rows and watched paths the tables hold.
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
				apply := rnd.IntN(2) == 0
				svc := *f.svc
				svc.Looking = !apply && rnd.IntN(2) == 0 // a look writes nothing
				if _, err := svc.Verify(ctx, apply); err != nil {
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
			look := *f.svc
			look.Looking = true
			for _, svc := range []*Service{f.svc, &look} {
				got, _, fed := fedRows(t, svc)
				if want := tableRows(t, svc); fed.badStream || !slices.Equal(sortedRows(got), sortedRows(want)) {
					t.Fatalf("seed %d step %d: the scan fed (bad stream %v, looking %v)\n%v\nthe tables hold\n%v",
						seed, step, fed.badStream, svc.Looking, got, want)
				}
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

// TestALookSavesNoScanIndex: a verify without --apply writes nothing, the
// scan index included, even when a sync's writes left it more paths
// behind than a reader patches without saving (resavePatch); it streams
// the index patched with those paths, and its verdicts are a writer's.
// The writer's verify after it saves the index.
func TestALookSavesNoScanIndex(t *testing.T) {
	ctx := context.Background()
	r := project(t)
	n := resavePatch + 20
	for i := range n {
		r.Write(fmt.Sprintf("gen/f%04d.go", i), "package gen\n")
	}
	r.Commit("many files")
	f := newFixture(t, r)
	f.sync()
	f.sync() // the index exists from here on
	for i := range n {
		r.Write(fmt.Sprintf("gen/f%04d.go", i), "package gen // changed\n")
	}
	f.sync() // writes n rows: the index is n paths behind
	r.Write("main.go", "package main\n\nfunc main() { println() }\n")
	scan := func() (gen int64, data []byte, deltas int) {
		db := f.svc.Store.DB()
		if err := db.QueryRow(`SELECT gen, data FROM registry_scan`).Scan(&gen, &data); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`SELECT count(*) FROM registry_scan_delta`).Scan(&deltas); err != nil {
			t.Fatal(err)
		}
		return gen, data, deltas
	}
	gen, data, deltas := scan()
	if deltas <= resavePatch {
		t.Fatalf("the index is %d paths behind, want more than %d", deltas, resavePatch)
	}

	look := *f.svc
	look.Looking = true
	got, _, fed := fedRows(t, &look)
	if want := tableRows(t, &look); fed.badStream || fed.save || !slices.Equal(sortedRows(got), sortedRows(want)) {
		t.Fatalf("a look's scan fed (bad stream %v, to save %v)\n%d rows; the tables hold %d", fed.badStream, fed.save, len(got), len(want))
	}
	looked, err := look.Verify(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if g, d, n := scan(); g != gen || !bytes.Equal(d, data) || n != deltas {
		t.Fatalf("a look changed the scan index: gen %d to %d, %d delta names to %d", gen, g, deltas, n)
	}
	wrote, err := f.svc.Verify(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if g, _, _ := scan(); g == gen {
		t.Fatal("the writer's verify did not save the index: the look was not tried on an index to save")
	}
	if !slices.Equal(looked.Verdicts, wrote.Verdicts) || looked.Counts != wrote.Counts {
		t.Fatalf("a look's verdicts %+v differ from a writer's %+v", looked.Counts, wrote.Counts)
	}
	if looked.Mismatch != 1 {
		t.Fatalf("verdicts %+v, want main.go's one mismatch", looked.Counts)
	}
}
