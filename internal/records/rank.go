package records

import (
	"context"
	"fmt"
	"strings"

	"github.com/freshctx/freshctx/internal/rank"
	"github.com/freshctx/freshctx/internal/store"
)

// Recall's order is package rank's; what is here is how the local store
// gives it its numbers: word frequencies from the full-text index, and the
// candidates' text and files.

// docShare estimates, for each word, its inverse document frequency from
// the newest sampleSize records: a count stops at the sample's size, so a
// common word costs no more than a rare one.
func docShare(ctx context.Context, tx *store.Tx, words []string) (map[string]float64, error) {
	var newest, oldest int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce((SELECT max(id) FROM records), 0), coalesce((SELECT min(id) FROM records), 0)`).Scan(&newest, &oldest); err != nil {
		return nil, err
	}
	from := max(newest-sampleSize, oldest-1)
	sample := float64(newest - from)
	idf := map[string]float64{}
	for _, w := range words {
		var docs float64
		err := tx.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM records_fts
			WHERE records_fts MATCH ? AND rowid > ? LIMIT ?)`, quoteTerm(w), from, sampleSize).Scan(&docs)
		if err != nil {
			return nil, fmt.Errorf("term frequency: %w", err)
		}
		idf[w] = rank.IDF(sample, docs)
	}
	return idf, nil
}

func quoteTerm(t string) string { return `"` + strings.ReplaceAll(t, `"`, `""`) + `"` }

// loadCandidates reads the indexed text and the files of records.
func loadCandidates(ctx context.Context, tx *store.Tx, ids []int64) (map[int64]*rank.Doc, error) {
	out := map[int64]*rank.Doc{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	in := "(?" + strings.Repeat(",?", len(ids)-1) + ")"
	rows, err := tx.QueryContext(ctx, `SELECT rowid, command, label, digest, facts FROM records_fts WHERE rowid IN `+in, args...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id int64
		var cmd, label, digest, facts string
		if err := rows.Scan(&id, &cmd, &label, &digest, &facts); err != nil {
			rows.Close()
			return nil, err
		}
		out[id] = rank.NewDoc(id, cmd+"\n"+label+"\n"+digest+"\n"+facts, nil)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = tx.QueryContext(ctx, `SELECT record_id, path FROM record_files WHERE record_id IN `+in, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var p string
		if err := rows.Scan(&id, &p); err != nil {
			return nil, err
		}
		if c := out[id]; c != nil {
			c.Files = append(c.Files, p)
		}
	}
	return out, rows.Err()
}
