package records

import (
	"context"
	"testing"

	"github.com/freshctx/freshctx/internal/store"
)

// TestOlderRecordsGetParts: records indexed before the index held parts of
// names are re-indexed by later runs, and then found by a part.
func TestOlderRecordsGetParts(t *testing.T) {
	s, _ := newService(t)
	ctx := context.Background()
	old := run(t, s, `echo "--- FAIL: TestFailGenFishCompletionFile (0.00s)"`)
	// As a store made before: the row indexed without parts, the marker set.
	err := s.Store.Update(ctx, func(tx *store.Tx) error {
		if err := indexWaiting(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE records_fts SET facts = 'TestFailGenFishCompletionFile' WHERE rowid = ?`, old.ID); err != nil {
			return err
		}
		return tx.SetMeta("records.parts_below", "2")
	})
	if err != nil {
		t.Fatal(err)
	}
	if hits := recall(t, s, "GenFish"); len(hits) != 0 {
		t.Fatalf("found by a part before re-indexing: %v", ids(hits))
	}
	run(t, s, `echo unrelated`)
	if hits := recall(t, s, "GenFish"); len(hits) != 1 || hits[0].ID != old.ID {
		t.Fatalf("recall GenFish after a run = %v, want %d", ids(hits), old.ID)
	}
	var below string
	s.Store.View(ctx, func(tx *store.Tx) error { below, _, err = tx.Meta("records.parts_below"); return err })
	if below != "1" {
		t.Errorf("parts_below = %q, want 1 (done)", below)
	}
}
