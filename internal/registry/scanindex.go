package registry

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/freshctx/freshctx/internal/store"
)

// The scan index keeps a root's stored fingerprints in one compressed
// value (registry_scan), of the gen registry_gen had when it was read,
// which triggers bump on every change to registry_files and registry_gone:
// reading 100,000 fingerprints row by row costs as much as their lstats.
// An index of an earlier gen is patched with the rows of the paths the
// triggers named since (registry_scan_delta), so the first reader after a
// write does not read every row again.

// encodeScan packs the index of all to be read as a stream (see
// scanstream.go).
func encodeScan(all []stored) []byte { return store.PackForStream(scanBytes(all)) }

// scanBytes is the index of all before compression: per row the path and
// the fingerprint each as a length and the bytes, the time a signed
// varint, and a byte for watched. Its buffer is made at its size: grown
// by appending, the 8.9 MB of 100,000 rows took 52 MB of buffers and,
// measured in turn, 4-11x the time (BenchmarkScanBytes100k).
func scanBytes(all []stored) []byte {
	size := 0
	for _, r := range all {
		size += store.StringSize(r.path) + store.StringSize(r.fp) + store.IntSize(r.at) + 1
	}
	return appendScan(make([]byte, 0, size), all)
}

// appendScan appends the index of all to b.
func appendScan(b []byte, all []stored) []byte {
	w := store.PackWriter{B: b}
	for _, r := range all {
		w.String(r.path)
		w.String(r.fp)
		w.Int(r.at)
		w.Bool(r.watched)
	}
	return w.B
}

func decodeScan(data []byte) ([]stored, error) {
	b, err := store.Unpack(data)
	if err != nil {
		return nil, err
	}
	// b is the scan's own: its strings share it rather than copy it.
	r := store.NewSharedPackReader(b)
	out := make([]stored, 0, scanEntries(b))
	for r.Left() > 0 {
		s := stored{path: r.String(), fp: r.String(), at: r.Int(), watched: r.Bool()}
		if r.Err != nil {
			return nil, r.Err
		}
		out = append(out, s)
	}
	return out, nil
}

// scanEntries counts the entries of a decoded scan by skipping over their
// fields, so that decodeScan allocates its slice once (at 100,000 entries
// growing it was a third of the decoding). A malformed value counts as far
// as it reads.
func scanEntries(b []byte) int {
	r := store.NewPackReader(b)
	n := 0
	for r.Left() > 0 {
		r.Raw(r.Count())
		r.Raw(r.Count())
		r.Int()
		r.Bool()
		if r.Err != nil {
			break
		}
		n++
	}
	return n
}

// scanHow is how a scan reads the stored fingerprints.
type scanHow int

const (
	// fromRows: no index to go by; the rows are read and the index built
	// again from them.
	fromRows scanHow = iota
	// fromStream: the index is current or a few paths behind; it is
	// streamed (scanstream.go) and the rows of the paths written since it
	// are read again.
	fromStream
	// fromWhole: the index is many paths behind; it is decoded whole,
	// patched and saved again, so the next reader patches less.
	fromWhole
)

// scanPlan is what planScan found: the current gen, how to read, and the
// paths written since the index (empty when it is current).
type scanPlan struct {
	gen     int64
	how     scanHow
	written map[string]bool
}

// planScan decides how to read the stored fingerprints of root, from the
// gens of the rows and of the index and the paths written since the index
// (registry_scan_delta, kept by the triggers that count gen). It reads no
// index data.
func planScan(ctx context.Context, tx *store.Tx, root string) (scanPlan, error) {
	var p scanPlan
	err := tx.QueryRowContext(ctx, `SELECT gen FROM registry_gen WHERE root = ?`, root).Scan(&p.gen)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return p, err
	}
	var have int64
	err = tx.QueryRowContext(ctx, `SELECT gen FROM registry_scan WHERE root = ?`, root).Scan(&have)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && have > p.gen) {
		return p, nil // none, or not to go by: rebuilt from the rows
	}
	if err != nil {
		return p, err
	}
	if have < p.gen {
		if p.written, err = scanDelta(ctx, tx, root, have); err != nil {
			return p, err
		}
	}
	switch n := len(p.written); {
	case n > maxPatch:
		p.how = fromRows
	case n > resavePatch:
		p.how = fromWhole
	default:
		p.how = fromStream
	}
	return p, nil
}

// scanDelta returns the paths written since gen have.
func scanDelta(ctx context.Context, tx *store.Tx, root string, have int64) (map[string]bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT path FROM registry_scan_delta WHERE root = ? AND gen > ?`, root, have)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	written := map[string]bool{}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		written[p] = true
	}
	return written, rows.Err()
}

// loadScan returns the scan index made current, decoded whole, and the
// current gen; ok false when there is none to go by (the rows must be
// read). All of it in the caller's transaction, so the index, the delta
// and the rows are of one moment.
func loadScan(ctx context.Context, tx *store.Tx, root string) (all []stored, gen int64, ok bool, err error) {
	p, err := planScan(ctx, tx, root)
	if err != nil || p.how == fromRows {
		return nil, p.gen, false, err
	}
	if all, err = readScan(ctx, tx, root); err != nil || all == nil {
		return nil, p.gen, false, err
	}
	all, err = patchScan(ctx, tx, root, all, p.written)
	return all, p.gen, err == nil, err
}

// readScan decodes the scan index of root; nil when there is none or it
// does not decode. The compressed value is read in place (RawBytes):
// decodeScan copies it out whole, and a copy of it first would be 1.6 MB
// more at 100,000 files.
func readScan(ctx context.Context, tx *store.Tx, root string) ([]stored, error) {
	var all []stored
	err := withScanData(ctx, tx, root, func(data []byte) error {
		all, _ = decodeScan(data)
		return nil
	})
	return all, err
}

// withScanData calls f with the compressed scan index of root, valid only
// during the call; not at all when there is none.
func withScanData(ctx context.Context, tx *store.Tx, root string, f func(data []byte) error) error {
	rows, err := tx.QueryContext(ctx, `SELECT data FROM registry_scan WHERE root = ?`, root)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		return rows.Err()
	}
	var data sql.RawBytes
	if err := rows.Scan(&data); err != nil {
		return err
	}
	return f(data)
}

// resavePatch is how many paths read again make a patched index worth
// saving, so the next reader patches less.
const resavePatch = 500

// maxPatch is the most paths a patch reads again; past it the rows are
// read whole, and the index saved anew.
const maxPatch = 5000

// patchScan brings an index up to the rows: every path written since it
// is dropped from it and read again from registry_files and registry_gone
// (a path may be in neither now, or in both). It patches all in place
// (the caller's slice is spent).
func patchScan(ctx context.Context, tx *store.Tx, root string, all []stored, written map[string]bool) ([]stored, error) {
	if len(written) == 0 {
		return all, nil
	}
	// all is this reader's own (decodeScan's): the rows kept close up in
	// place, and the rows read again take the room the dropped ones left
	// (only paths new to the index grow it). A copy grown as it filled
	// allocated five times the index at 100,000 rows, every page of it new
	// to the process.
	out := all[:0]
	for _, r := range all {
		if !written[r.path] {
			out = append(out, r)
		}
	}
	return readRowsOf(ctx, tx, root, written, out)
}

// readRowsOf reads the rows and watched paths of paths onto out.
func readRowsOf(ctx context.Context, tx *store.Tx, root string, paths map[string]bool, out []stored) ([]stored, error) {
	list := make([]string, 0, len(paths))
	for p := range paths {
		list = append(list, p)
	}
	for i := 0; i < len(list); i += 500 {
		part := list[i:min(i+500, len(list))]
		args := []any{root}
		for _, p := range part {
			args = append(args, p)
		}
		in := "(?" + strings.Repeat(",?", len(part)-1) + ")"
		for _, q := range []string{
			`SELECT path, fp, fp_at, 0 FROM registry_files WHERE root = ? AND path IN ` + in,
			`SELECT path, fp, fp_at, 1 FROM registry_gone WHERE root = ? AND path IN ` + in,
		} {
			var err error
			if out, err = appendRows(ctx, tx, q, args, out); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// appendRows reads (path, fp, fp_at, watched) rows onto out.
func appendRows(ctx context.Context, tx *store.Tx, q string, args []any, out []stored) ([]stored, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var r stored
		if err := rows.Scan(&r.path, &r.fp, &r.at, &r.watched); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// saveScan stores the index read at gen, only if gen is still the current
// one: a write since would be in neither the index nor the delta (the
// delta names paths only while an index exists). The delta's names up to
// gen are in the index and go.
func (s *Service) saveScan(ctx context.Context, gen int64, all []stored) error {
	data := encodeScan(all)
	err := s.Store.Update(ctx, func(tx *store.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO registry_scan (root, gen, data)
			SELECT ?, ?, ? WHERE (SELECT gen FROM registry_gen WHERE root = ?) = ?
			ON CONFLICT(root) DO UPDATE SET gen = excluded.gen, data = excluded.data`, s.WS.Root, gen, data, s.WS.Root, gen)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // written since: not saved
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM registry_scan_delta WHERE root = ? AND gen <= ?`, s.WS.Root, gen)
		return err
	})
	if err != nil {
		return fmt.Errorf("save the registry scan index: %w", err)
	}
	return nil
}
