package registry

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/freshctx/freshctx/internal/store"
)

// The scan index keeps a root's stored fingerprints in one compressed
// value (registry_scan), valid only while its gen equals registry_gen's,
// which triggers bump on every change to registry_files and registry_gone:
// reading 100,000 fingerprints row by row costs as much as their lstats.

func encodeScan(all []stored) []byte {
	var b []byte
	for _, r := range all {
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
	return store.Pack(b)
}

var errBadScan = errors.New("malformed scan index")

func decodeScan(data []byte) ([]stored, error) {
	b, err := store.Unpack(data)
	if err != nil {
		return nil, err
	}
	var out []stored
	str := func() (string, bool) {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return "", false
		}
		s := string(b[k : k+int(n)])
		b = b[k+int(n):]
		return s, true
	}
	for len(b) > 0 {
		var r stored
		var ok bool
		if r.path, ok = str(); !ok {
			return nil, errBadScan
		}
		if r.fp, ok = str(); !ok {
			return nil, errBadScan
		}
		at, k := binary.Varint(b)
		if k <= 0 || len(b) < k+1 {
			return nil, errBadScan
		}
		r.at, r.watched, b = at, b[k] == 1, b[k+1:]
		out = append(out, r)
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
