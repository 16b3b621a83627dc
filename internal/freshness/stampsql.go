package freshness

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/freshctx/freshctx/internal/sha"
	"github.com/freshctx/freshctx/internal/store"
)

// Stamp files are stored in tables with the same columns: an owner id, then
// path, existed, is_dir, size, mtime_ns, sha256, git_clean (no longer
// read: git never vouches for a file), fp and notes.

// InsertFiles writes the file stamps of one owner into table.
func InsertFiles(ctx context.Context, tx *store.Tx, table, ownerCol string, owner int64, files []FileStamp) error {
	if len(files) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, fmt.Sprintf(`INSERT INTO %s (%s, path, existed, is_dir, size, mtime_ns,
		sha256, git_clean, fp, notes) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`, table, ownerCol))
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, f := range files {
		if _, err := stmt.ExecContext(ctx, owner, f.Path, f.Existed, f.IsDir, f.Size, f.ModTime,
			f.Digest.String(), f.FP.String(), f.Notes); err != nil {
			return fmt.Errorf("store stamp of %s: %w", f.Path, err)
		}
	}
	return nil
}

// LoadFiles reads the file stamps of many owners from table, in insertion
// order per owner. The order is restored here, not by ORDER BY: SQLite's
// sorter grows its buffer by reallocation, which costs the pure-Go build
// a copy each time (7 ms of a 2,000-slice get).
func LoadFiles(ctx context.Context, tx *store.Tx, table, ownerCol string, owners []int64) (map[int64][]FileStamp, error) {
	type row struct {
		rowid int64
		f     FileStamp
	}
	byOwner := map[int64][]row{}
	for i := 0; i < len(owners); i += 500 {
		part := owners[i:min(i+500, len(owners))]
		args := make([]any, len(part))
		for j, id := range part {
			args[j] = id
		}
		rows, err := tx.QueryContext(ctx, fmt.Sprintf(`SELECT rowid, %s, path, existed, is_dir, size, mtime_ns, sha256, fp, notes
			FROM %s WHERE %s IN (?%s)`, ownerCol, table, ownerCol, strings.Repeat(",?", len(part)-1)), args...)
		if err != nil {
			return nil, fmt.Errorf("load stamps: %w", err)
		}
		for rows.Next() {
			var id int64
			var r row
			f := &r.f
			var h, fp string
			if err := rows.Scan(&r.rowid, &id, &f.Path, &f.Existed, &f.IsDir, &f.Size, &f.ModTime, &h, &fp, &f.Notes); err != nil {
				rows.Close()
				return nil, err
			}
			if f.Digest, err = sha.Parse(h); err != nil {
				rows.Close()
				return nil, fmt.Errorf("stamp of %s: %w", f.Path, err)
			}
			if f.FP, err = ParseFingerprint(fp); err != nil {
				f.FP = Fingerprint{} // no evidence: the file is hashed
			}
			byOwner[id] = append(byOwner[id], r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	out := make(map[int64][]FileStamp, len(byOwner))
	for id, rs := range byOwner {
		slices.SortFunc(rs, func(a, b row) int { return cmp.Compare(a.rowid, b.rowid) })
		fs := make([]FileStamp, len(rs))
		for i, r := range rs {
			fs[i] = r.f
		}
		out[id] = fs
	}
	return out, nil
}
