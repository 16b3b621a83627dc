package records

import (
	"context"
	"strconv"
	"time"

	"github.com/freshctx/freshctx/internal/store"
)

// pruneDue reports whether pruneEvery has passed since the last prune.
func pruneDue(tx *store.Tx) (bool, error) {
	last, _, err := tx.Meta("records.last_prune")
	if err != nil {
		return false, err
	}
	ns, _ := strconv.ParseInt(last, 10, 64)
	return tx.Now.Sub(time.Unix(0, ns)) >= pruneEvery, nil
}

// pruneEvery is how often run and capture look for records past retention.
const pruneEvery = time.Hour

// pruneIfDue, at most once per pruneEvery, removes what killed captures
// left in the blob area and deletes records older than the retention (and
// the output only they used). A failure is returned but the caller's record
// is already safe.
func (s *Service) pruneIfDue(ctx context.Context) (*Forgotten, error) {
	// Asked first in a read: every run and capture asks, and a write
	// would take the writers' lock each time for an answer that is "not
	// yet" all but once an hour.
	due := false
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		due, err = pruneDue(tx)
		return err
	})
	if err != nil || !due {
		return nil, err
	}
	err = s.Store.Update(ctx, func(tx *store.Tx) error {
		var err error
		if due, err = pruneDue(tx); err != nil || !due {
			return err // another process took it in between
		}
		return tx.SetMeta("records.last_prune", strconv.FormatInt(tx.Now.UnixNano(), 10))
	})
	if err != nil || !due {
		return nil, err
	}
	s.Store.SweepTemporary()
	if s.Retention <= 0 {
		return nil, nil
	}
	return s.ForgetOlderThan(ctx, s.Retention)
}
