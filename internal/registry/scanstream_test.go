package registry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
)

// collect consumes a feed as the workers do, keeping a copy of every row
// (the stream's buffers are given back and written over) and whether it
// came from the stream.
func collect(feed scanFeed) (wait func() (rows []stored, streamed int)) {
	var rows []stored
	streamed := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for c := range feed.chunks {
			for _, r := range c.rows {
				rows = append(rows, stored{path: strings.Clone(r.path), fp: strings.Clone(r.fp), at: r.at, watched: r.watched})
			}
			if c.buf != nil {
				streamed += len(c.rows)
				feed.giveBack(c.buf)
			}
		}
	}()
	return func() ([]stored, int) {
		<-done
		return rows, streamed
	}
}

// streamed runs streamScan over data to the end.
func streamed(data []byte, skip map[string]bool) ([]stored, int, error) {
	feed := newScanFeed()
	wait := collect(feed)
	n, err := streamScan(context.Background(), data, skip, feed)
	close(feed.chunks)
	rows, _ := wait()
	return rows, n, err
}

func randomRows(rnd *rand.Rand, n int) []stored {
	rows := make([]stored, n)
	for i := range rows {
		p := fmt.Sprintf("pkg%d/sub%d/file%06d.go", rnd.IntN(10), rnd.IntN(30), i)
		switch rnd.IntN(200) {
		case 0:
			p = strings.Repeat("long/", 3*scanBufSize/5) + p // longer than two buffers
		case 1:
			p = "dir/é ü.go"
		}
		fp := fmt.Sprintf("2049:%d:%d:%d:%d:420", rnd.Uint32(), rnd.IntN(1<<20), rnd.Int64(), rnd.Int64())
		if rnd.IntN(50) == 0 {
			fp = ""
		}
		rows[i] = stored{path: p, fp: fp, at: rnd.Int64() - 1<<62, watched: rnd.IntN(20) == 0}
	}
	return rows
}

// TestScanStreamIsTheIndex: the rows streamed from an index are the rows
// decoded whole, in order, but those skipped, whatever falls on the
// buffers' edges (rows cut across them, rows longer than a buffer), and
// the count is of the rows kept, watched paths aside.
func TestScanStreamIsTheIndex(t *testing.T) {
	for _, n := range []int{0, 1, 7, 399, 400, 401, 3000, 20000} {
		rnd := rand.New(rand.NewPCG(uint64(n), 46))
		all := randomRows(rnd, n)
		data := encodeScan(all)
		whole, err := decodeScan(data)
		if err != nil || len(whole) != n {
			t.Fatalf("%d rows: decoded %d whole, %v", n, len(whole), err)
		}
		skip := map[string]bool{"not/in/it.go": true}
		for _, r := range all {
			if rnd.IntN(10) == 0 {
				skip[r.path] = true
			}
		}
		var want []stored
		for _, r := range whole {
			if !skip[r.path] {
				want = append(want, r)
			}
		}
		got, count, err := streamed(data, skip)
		if err != nil {
			t.Fatalf("%d rows: %v", n, err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%d rows: streamed %d rows, want %d; first difference at %d", n, len(got), len(want), firstDiff(got, want))
		}
		if count != rowsAmong(want) {
			t.Fatalf("%d rows: counted %d, want %d", n, count, rowsAmong(want))
		}
	}
}

func firstDiff(a, b []stored) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestScanStreamRefusesABadIndex: a value cut short, one whose checksum is
// wrong, one whose decompressed bytes end inside a row, and one written
// with a wide window (an earlier version's, decoded whole) are errBadScan,
// never a short list of rows without an error.
func TestScanStreamRefusesABadIndex(t *testing.T) {
	rows := randomRows(rand.New(rand.NewPCG(1, 46)), 5000)
	data := encodeScan(rows)
	ten := scanBytes(rows[:10])
	cutRow := store.PackForStream(ten[:len(ten)-3])
	badSum := slices.Clone(data)
	badSum[len(badSum)-1] ^= 0xff
	for name, data := range map[string][]byte{
		"cut in half":      data[:len(data)/2],
		"cut by one byte":  data[:len(data)-1],
		"checksum":         badSum,
		"a row cut short":  cutRow,
		"a wide window":    store.Pack(scanBytes(rows)),
		"not zstd at all":  []byte("path fp at watched"),
		"a frame's header": data[:6],
	} {
		if got, _, err := streamed(data, nil); !errors.Is(err, errBadScan) {
			t.Errorf("%s: %d rows, %v; want errBadScan", name, len(got), err)
		}
	}
	if got, n, err := streamed(nil, nil); err != nil || len(got) != 0 || n != 0 {
		t.Errorf("the index of no rows: %d rows, count %d, %v", len(got), n, err)
	}
}

// fedRows runs a scan's feed of svc's registry to the end.
func fedRows(t *testing.T, svc *Service) ([]stored, int, scanFed) {
	t.Helper()
	feed := newScanFeed()
	wait := collect(feed)
	fed, err := svc.feedScan(context.Background(), feed)
	close(feed.chunks)
	rows, streamed := wait()
	if err != nil {
		t.Fatal(err)
	}
	return rows, streamed, fed
}

// tableRows reads every row and watched path of svc's registry from the
// tables.
func tableRows(t *testing.T, svc *Service) []stored {
	t.Helper()
	ctx := context.Background()
	var rows []stored
	err := svc.Store.View(ctx, func(tx *store.Tx) error {
		for _, q := range []string{`SELECT path, fp, fp_at, 0 FROM registry_files WHERE root = ?`,
			`SELECT path, fp, fp_at, 1 FROM registry_gone WHERE root = ?`} {
			var err error
			if rows, err = appendRows(ctx, tx, q, []any{svc.WS.Root}, rows); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func sortedRows(rows []stored) []stored {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b stored) int {
		return cmp.Or(strings.Compare(a.path, b.path), cmp.Compare(fmt.Sprint(a.watched), fmt.Sprint(b.watched)))
	})
	return rows
}

// TestScanFallsBackFromABadStream: an index whose checksum turns out wrong
// at its end has sent its rows to the workers by then. Nothing they found
// in them counts: the rows are read from the tables and the index built
// again. Here the bad index names a path the registry does not hold (whose
// lstat fails, so it would be a moved row) and lacks a row whose file was
// edited (which would be missed), and many watched paths, absent, so that
// buffers go to the workers before the checksum is read.
func TestScanFallsBackFromABadStream(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, project(t))
	f.sync()
	f.sync() // the index exists from here on
	rows := tableRows(t, f.svc)
	bad := []stored{{path: "ghost.go", fp: "1:2:3:4:5:420", at: 1}} // in the first buffer
	for _, r := range rows {
		if r.path != "main.go" {
			bad = append(bad, r)
		}
	}
	for i := range 5000 { // buffers enough to be sent before the end
		bad = append(bad, stored{path: fmt.Sprintf("gone/%05d.go", i), watched: true})
	}
	data := encodeScan(bad)
	data[len(data)-1] ^= 0xff
	err := f.svc.Store.Update(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE registry_scan SET data = ?`, data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	f.r.Write("main.go", "package main\n\nfunc main() { println(1) }\n")
	moved, n, err := f.svc.moved(ctx, mustSnapshot(t, f.svc))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(moved, "main.go") || slices.Contains(moved, "ghost.go") || n != rowsAmong(rows) {
		t.Fatalf("moved %v of %d rows; want main.go, not ghost.go, of %d", moved, n, rowsAmong(rows))
	}
	got, streamedRows, fed := fedRows(t, f.svc)
	if fed.badStream || streamedRows == 0 || !slices.Equal(sortedRows(got), sortedRows(rows)) {
		t.Fatalf("the index built again: %d rows (%d streamed, bad %v), want the tables' %d", len(got), streamedRows, fed.badStream, len(rows))
	}
}

// TestScanIndexOfAnEarlierVersionIsBuiltAgain: an index compressed with a
// wide window (as every version before the stream wrote it) is read from
// the rows once and saved narrow.
func TestScanIndexOfAnEarlierVersionIsBuiltAgain(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, project(t))
	f.sync()
	f.sync()
	rows := tableRows(t, f.svc)
	old := slices.Clone(rows)
	for i := range 5000 { // watched paths enough for a window wider than store.StreamWindow
		old = append(old, stored{path: fmt.Sprintf("gone/%05d.go", i), watched: true})
	}
	err := f.svc.Store.Update(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE registry_scan SET data = ?`, store.Pack(scanBytes(old)))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, fed := fedRows(t, f.svc); !fed.badStream || !fed.save {
		t.Fatalf("a wide index: %+v, want it refused and saved again", fed)
	}
	if _, _, err := f.svc.moved(ctx, mustSnapshot(t, f.svc)); err != nil {
		t.Fatal(err)
	}
	got, streamedRows, fed := fedRows(t, f.svc)
	if fed.badStream || streamedRows != len(rows) || !slices.Equal(sortedRows(got), sortedRows(rows)) {
		t.Fatalf("after one scan: %d rows (%d streamed, bad %v), want the tables' %d", len(got), streamedRows, fed.badStream, len(rows))
	}
}

func mustSnapshot(t *testing.T, svc *Service) *freshness.Snapshot {
	t.Helper()
	snap, err := svc.snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// FuzzScanStream: for any bytes compressed as an index, the stream gives
// the rows decodeScan gives (every row when nothing is skipped), or both
// refuse them.
func FuzzScanStream(f *testing.F) {
	f.Add(scanBytes(randomRows(rand.New(rand.NewPCG(2, 46)), 3)))
	f.Add([]byte{4, 'a', '.', 'g', 'o', 0, 2, 1})
	f.Add([]byte{200, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		data := store.PackForStream(b)
		whole, werr := decodeScan(data)
		got, n, err := streamed(data, nil)
		switch {
		case (werr == nil) != (err == nil):
			t.Fatalf("decoded whole: %d rows, %v; streamed: %d rows, %v", len(whole), werr, len(got), err)
		case err == nil && (!slices.Equal(got, whole) || n != rowsAmong(whole)):
			t.Fatalf("streamed %d rows (count %d), decoded whole %d", len(got), n, len(whole))
		}
	})
}
