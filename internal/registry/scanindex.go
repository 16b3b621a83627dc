package registry

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/freshctx/freshctx/internal/store"
)

// The scan index keeps a root's stored fingerprints in one compressed
// value (registry_scan), valid only while its gen equals registry_gen's,
// which triggers bump on every change to registry_files and registry_gone:
// reading 100,000 fingerprints row by row costs as much as their lstats.

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
	r := store.NewPackReader(b)
	var out []stored
	for r.Left() > 0 {
		s := stored{path: r.String(), fp: r.String(), at: r.Int(), watched: r.Bool()}
		if r.Err != nil {
			return nil, r.Err
		}
		out = append(out, s)
	}
	return out, nil
}

// loadScan returns the scan index when it is current, and the current gen.
func loadScan(ctx context.Context, tx *store.Tx, root string) ([]stored, int64, bool, error) {
	var gen int64
	err := tx.QueryRowContext(ctx, `SELECT gen FROM registry_gen WHERE root = ?`, root).Scan(&gen)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, 0, false, err
	}
	var have int64
	var data []byte
	err = tx.QueryRowContext(ctx, `SELECT gen, data FROM registry_scan WHERE root = ?`, root).Scan(&have, &data)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && have != gen) {
		return nil, gen, false, nil
	}
	if err != nil {
		return nil, gen, false, err
	}
	all, err := decodeScan(data)
	if err != nil {
		return nil, gen, false, nil // rebuilt from the rows
	}
	return all, gen, true, nil
}

// saveScan stores the index built at gen; a later change has bumped gen
// and makes it unused, so a race can only waste it.
func (s *Service) saveScan(ctx context.Context, gen int64, all []stored) error {
	data := encodeScan(all)
	err := s.Store.Update(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO registry_scan (root, gen, data) VALUES (?, ?, ?)
			ON CONFLICT(root) DO UPDATE SET gen = excluded.gen, data = excluded.data`, s.WS.Root, gen, data)
		return err
	})
	if err != nil {
		return fmt.Errorf("save the registry scan index: %w", err)
	}
	return nil
}
