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

func encodeScan(all []stored) []byte {
	var w store.PackWriter
	for _, r := range all {
		w.String(r.path)
		w.String(r.fp)
		w.Int(r.at)
		w.Bool(r.watched)
	}
	return store.Pack(w.B)
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

// loadScan returns the scan index made current, and the current gen; ok
// false when there is none to go by (the rows must be read), and resave
// when a patch read many rows again (the patched index is worth saving). An index of
// an earlier gen is patched: the rows of the paths written since it
// (registry_scan_delta, kept by the triggers that count gen) are read
// again, the rest taken from it. All of it in the caller's transaction, so
// the index, the delta and the rows are of one moment.
func loadScan(ctx context.Context, tx *store.Tx, root string) (all []stored, gen int64, ok, resave bool, err error) {
	err = tx.QueryRowContext(ctx, `SELECT gen FROM registry_gen WHERE root = ?`, root).Scan(&gen)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, 0, false, false, err
	}
	have, all, err := readScan(ctx, tx, root)
	if err != nil || all == nil || have > gen {
		return nil, gen, false, false, err // none, or not to go by: rebuilt from the rows
	}
	if have == gen {
		return all, gen, true, false, nil
	}
	all, n, err := patchScan(ctx, tx, root, have, all)
	return all, gen, err == nil && n >= 0, n > resavePatch, err
}

// readScan decodes the scan index of root and returns it with its gen;
// nil when there is none or it does not decode. The compressed value is
// read in place (RawBytes): decodeScan copies it out whole, and a copy of
// it first would be 1.6 MB more for every sync at 100,000 files.
func readScan(ctx context.Context, tx *store.Tx, root string) (int64, []stored, error) {
	rows, err := tx.QueryContext(ctx, `SELECT gen, data FROM registry_scan WHERE root = ?`, root)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		return 0, nil, rows.Err()
	}
	var have int64
	var data sql.RawBytes
	if err := rows.Scan(&have, &data); err != nil {
		return 0, nil, err
	}
	all, err := decodeScan(data)
	if err != nil {
		return have, nil, nil
	}
	return have, all, nil
}

// resavePatch is how many paths read again make a patched index worth
// saving, so the next reader patches less.
const resavePatch = 500

// maxPatch is the most paths a patch reads again; past it the rows are
// read whole, and the index saved anew.
const maxPatch = 5000

// patchScan brings an index of gen have up to the rows: every path written
// since is dropped from it and read again from registry_files and
// registry_gone (a path may be in neither now, or in both). It patches all
// in place (the caller's slice is spent), and returns how many paths it
// read again, -1 when too many to patch.
func patchScan(ctx context.Context, tx *store.Tx, root string, have int64, all []stored) ([]stored, int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT path FROM registry_scan_delta WHERE root = ? AND gen > ?`, root, have)
	if err != nil {
		return nil, 0, err
	}
	written := map[string]bool{}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return nil, 0, err
		}
		written[p] = true
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, 0, err
	}
	if len(written) > maxPatch {
		return nil, -1, nil
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
	paths := make([]string, 0, len(written))
	for p := range written {
		paths = append(paths, p)
	}
	for i := 0; i < len(paths); i += 500 {
		part := paths[i:min(i+500, len(paths))]
		args := []any{root}
		for _, p := range part {
			args = append(args, p)
		}
		in := "(?" + strings.Repeat(",?", len(part)-1) + ")"
		for _, q := range []string{
			`SELECT path, fp, fp_at, 0 FROM registry_files WHERE root = ? AND path IN ` + in,
			`SELECT path, fp, fp_at, 1 FROM registry_gone WHERE root = ? AND path IN ` + in,
		} {
			if out, err = appendRows(ctx, tx, q, args, out); err != nil {
				return nil, 0, err
			}
		}
	}
	return out, len(paths), nil
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
