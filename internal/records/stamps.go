package records

import (
	"context"
	"fmt"
	"strings"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
)

// A record naming many files also keeps their stamps packed
// (record_stamps): its check reads one value where it would read a row
// per file, a column at a time (a record of 2,000 files: most of what
// `show` took beside the check itself). The rows stay: recall finds
// records by the paths they name.

// stampsFormat is the encoding written; a pack of another is not read
// (the rows are).
const stampsFormat = 1

// stampsPackMin is how many files a record names before it keeps a pack:
// a few rows read in well under a millisecond.
var stampsPackMin = 64 // a variable for tests

// insertStamps keeps the pack of a record naming many files.
func insertStamps(ctx context.Context, tx *store.Tx, id int64, files []freshness.FileStamp) error {
	if len(files) < stampsPackMin {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO record_stamps (record_id, format, data) VALUES (?, ?, ?)`,
		id, stampsFormat, freshness.PackStamps(files))
	if err != nil {
		return fmt.Errorf("keep the stamps of record %d: %w", id, err)
	}
	return nil
}

// loadStamps reads the packs of those of ids that have one. A pack that
// cannot be read is left out: its record is read from its rows.
func loadStamps(ctx context.Context, tx *store.Tx, ids []int64) (map[int64][]freshness.FileStamp, error) {
	out := map[int64][]freshness.FileStamp{}
	for i := 0; i < len(ids); i += 500 {
		part := ids[i:min(i+500, len(ids))]
		args := []any{stampsFormat}
		for _, id := range part {
			args = append(args, id)
		}
		rows, err := tx.QueryContext(ctx, `SELECT record_id, data FROM record_stamps WHERE format = ?
			AND record_id IN (?`+strings.Repeat(",?", len(part)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("load stamps: %w", err)
		}
		for rows.Next() {
			var id int64
			var data []byte
			if err := rows.Scan(&id, &data); err != nil {
				rows.Close()
				return nil, err
			}
			if files, err := freshness.UnpackStamps(data); err == nil {
				out[id] = files
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
