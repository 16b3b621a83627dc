package records

import (
	"context"
	"strconv"
	"time"

	"github.com/freshctx/freshctx/internal/store"
)

// pruneEvery is how often run and capture look for records past retention.
const pruneEvery = time.Hour

// pruneIfDue, at most once per pruneEvery, removes what killed captures
// left in the blob area and deletes records older than the retention (and
// the output only they used). A failure is returned but the caller's record
// is already safe.
func (s *Service) pruneIfDue(ctx context.Context) (*Forgotten, error) {
	due := false
	err := s.Store.Update(ctx, func(tx *store.Tx) error {
		last, _, err := tx.Meta("records.last_prune")
		if err != nil {
			return err
		}
		ns, _ := strconv.ParseInt(last, 10, 64)
		if tx.Now.Sub(time.Unix(0, ns)) < pruneEvery {
			return nil
		}
		due = true
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
