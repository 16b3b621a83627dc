package readcache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/freshctx/freshctx/internal/store"
)

// A read is delivered in a transaction of its own, after its answer went
// out; reads of the same session made meanwhile (an agent's parallel tool
// calls) move the leaf on past it. Replaying the session's whole path
// then (rebuild) costs a walk of every entry on it, about 50 ms at 3,000
// (BenchmarkParallelDelivery, before this path). The entries between the
// read and the leaf are few, and usually name other files or are reads
// still waiting for their own delivery: a picture is per file, so where
// none of them bears on the read's file and none is a compaction, the
// replay would give every other file the picture it has and this file
// the one delivering the read in order gives (shownBy over its picture as
// the read found it, which the entries since left alone). Delivered takes
// that path; otherwise it replays.

// maxSince bounds the entries walked back from the leaf: more than this
// many reads since this one, and the replay decides.
const maxSince = 64

// clearSince reports whether the path from leaf back to e passes only
// entries that leave e's file alone: no compaction, and no delivered or
// revoked read, invalidation or edit of the file (a read of it still
// waiting for its own delivery paints nothing in a replay). It is false
// when e is not on the leaf's path (a checkout or a fork moved the leaf
// elsewhere) or lies more than maxSince entries back.
func clearSince(ctx context.Context, tx *store.Tx, e entry, leaf int64) (bool, error) {
	cur := leaf
	for range maxSince {
		if cur == e.id {
			return true, nil
		}
		if cur < e.id {
			return false, nil // an entry's parent is older: e is not behind the leaf
		}
		var kind, path string
		var parent sql.NullInt64
		var delivered, revoked bool
		err := tx.QueryRowContext(ctx, `SELECT kind, path, parent, delivered, revoked FROM rc_entries WHERE id = ?`, cur).
			Scan(&kind, &path, &parent, &delivered, &revoked)
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("entry %d: %w", cur, err)
		}
		if kind == "compaction" || (path == e.path && bears(kind, delivered, revoked)) {
			return false, nil
		}
		if !parent.Valid {
			return false, nil
		}
		cur = parent.Int64
	}
	return false, nil
}

// bears reports whether an entry about a file changes its picture in a
// replay (rebuild): an invalidation or edit always, a read once delivered
// or revoked.
func bears(kind string, delivered, revoked bool) bool {
	return kind != "read" || delivered || revoked
}
