package records

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
)

// stamp stamps the record's files as of the command's start: a file that
// changed while it ran is noted, and files past maxStamped, and unstamped
// ones, are kept unstamped (the record is then at best unknown), never
// dropped.
func (s *Service) stamp(ctx context.Context, snap *freshness.Snapshot, paths, unstamped []string, start, since time.Time) (freshness.Stamp, error) {
	n := min(len(paths), maxStamped)
	st, err := snap.Stamp(ctx, paths[:n], since)
	if err != nil {
		return st, fmt.Errorf("stamp files: %w", err)
	}
	st.At = start
	for _, p := range slices.Concat(paths[n:], unstamped) {
		_, err := os.Lstat(s.WS.Abs(p)) // that it was there is all that is kept
		st.Files = append(st.Files, freshness.FileStamp{Path: p, Existed: err == nil, Notes: freshness.NoteNotStamped})
	}
	return st, nil
}
