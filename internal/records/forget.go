package records

import (
	"context"
	"fmt"
	"time"

	"github.com/freshctx/freshctx/internal/store"
)

// Forgotten says what Forget removed.
type Forgotten struct {
	IDs          []int64 `json:"forgotten"`
	BlobsDeleted int     `json:"blobs_deleted"`
	BytesFreed   int64   `json:"bytes_freed"`
}

// Forget deletes the records with the given ids (all must exist, or nothing
// is deleted) and the blobs no record references any more.
func (s *Service) Forget(ctx context.Context, ids []int64) (*Forgotten, error) {
	out := &Forgotten{IDs: []int64{}}
	err := s.Store.Update(ctx, func(tx *store.Tx) error {
		for _, id := range ids {
			res, err := tx.ExecContext(ctx, "DELETE FROM records WHERE id = ?", id)
			if err != nil {
				return fmt.Errorf("delete record %d: %w", id, err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return fmt.Errorf("record %d: %w", id, ErrNotFound)
			}
			out.IDs = append(out.IDs, id)
		}
		return s.dropOrphans(tx, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ForgetOlderThan deletes every record started more than age ago.
func (s *Service) ForgetOlderThan(ctx context.Context, age time.Duration) (*Forgotten, error) {
	out := &Forgotten{IDs: []int64{}}
	err := s.Store.Update(ctx, func(tx *store.Tx) error {
		cutoff := tx.Now.Add(-age).UnixNano()
		rows, err := tx.QueryContext(ctx, "DELETE FROM records WHERE started_at < ? RETURNING id", cutoff)
		if err != nil {
			return fmt.Errorf("delete old records: %w", err)
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			out.IDs = append(out.IDs, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		return s.dropOrphans(tx, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Service) dropOrphans(tx *store.Tx, out *Forgotten) error {
	n, freed, err := tx.DeleteOrphanBlobs()
	if err != nil {
		return err
	}
	out.BlobsDeleted, out.BytesFreed = n, freed
	return nil
}
