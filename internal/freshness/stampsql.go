package freshness

import (
	"context"
	"fmt"
	"strings"

	"github.com/freshctx/freshctx/internal/digest"
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
// order per owner.
func LoadFiles(ctx context.Context, tx *store.Tx, table, ownerCol string, owners []int64) (map[int64][]FileStamp, error) {
	out := map[int64][]FileStamp{}
	for i := 0; i < len(owners); i += 500 {
		part := owners[i:min(i+500, len(owners))]
		args := make([]any, len(part))
		for j, id := range part {
			args[j] = id
		}
		rows, err := tx.QueryContext(ctx, fmt.Sprintf(`SELECT %s, path, existed, is_dir, size, mtime_ns, sha256, fp, notes
			FROM %s WHERE %s IN (?%s) ORDER BY rowid`, ownerCol, table, ownerCol, strings.Repeat(",?", len(part)-1)), args...)
		if err != nil {
			return nil, fmt.Errorf("load stamps: %w", err)
		}
		for rows.Next() {
			var id int64
			var f FileStamp
			var h, fp string
			if err := rows.Scan(&id, &f.Path, &f.Existed, &f.IsDir, &f.Size, &f.ModTime, &h, &fp, &f.Notes); err != nil {
				rows.Close()
				return nil, err
			}
			if f.Digest, err = digest.Parse(h); err != nil {
				rows.Close()
				return nil, fmt.Errorf("stamp of %s: %w", f.Path, err)
			}
			if f.FP, err = ParseFingerprint(fp); err != nil {
				f.FP = Fingerprint{} // no evidence: the file is hashed
			}
			out[id] = append(out[id], f)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
