package readcache

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/freshctx/freshctx/internal/store"
)

// SessionInfo is one row of `session list`.
type SessionInfo struct {
	Name      string    `json:"name"`
	Entries   int       `json:"entries"`
	Leaf      int64     `json:"leaf"`
	CreatedAt time.Time `json:"created_at"`
	// PID is the live process serving it, 0 when none.
	PID int `json:"pid"`
	// Ended: it belonged to a connection that is gone; gc deletes it.
	Ended bool `json:"ended"`
}

// Sessions lists every session of the store, oldest first.
func (s *Service) Sessions(ctx context.Context) ([]SessionInfo, error) {
	out := []SessionInfo{}
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT s.name, coalesce(s.leaf, 0), s.created_at,
			(SELECT count(*) FROM rc_entries e WHERE e.session = s.name),
			coalesce((SELECT value FROM meta WHERE key = ? || s.name), ''),
			EXISTS (SELECT 1 FROM meta WHERE key = ? || s.name)
			FROM rc_sessions s ORDER BY s.created_at, s.name`, livePrefix, endsPrefix)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var si SessionInfo
			var created int64
			var pid string
			var ends bool
			if err := rows.Scan(&si.Name, &si.Leaf, &created, &si.Entries, &pid, &ends); err != nil {
				return err
			}
			si.CreatedAt = time.Unix(0, created)
			if n, _ := strconv.Atoi(pid); store.ProcessAlive(n) {
				si.PID = n
			}
			si.Ended = ends && si.PID == 0
			out = append(out, si)
		}
		return rows.Err()
	})
	return out, err
}

// ErrLive refuses to delete a session a running process serves.
var ErrLive = errors.New("a running process serves it")

// Delete removes a session: its entries (but those another session's tree
// still stands on), its pictures and its marks. Stored versions no entry
// needs any more go with the next gc.
func (s *Service) Delete(ctx context.Context, session string) (int, error) {
	var n int
	err := s.Store.Update(ctx, func(tx *store.Tx) error {
		if _, err := sessionLeaf(ctx, tx, session, s.WS.Root, false); err != nil {
			return err
		}
		pid, _, err := tx.Meta(livePrefix + session)
		if err != nil {
			return err
		}
		if p, _ := strconv.Atoi(pid); store.ProcessAlive(p) {
			return fmt.Errorf("session %s: %w (pid %d)", session, ErrLive, p)
		}
		n, err = deleteSession(ctx, tx, session)
		return err
	})
	return n, err
}

// deleteSession deletes a session's rows and returns how many entries went.
func deleteSession(ctx context.Context, tx *store.Tx, session string) (int, error) {
	// Kept: every ancestor of another session's leaf or entries. Entries of
	// sessions deleted before that nothing stands on any more go too.
	res, err := tx.ExecContext(ctx, `WITH RECURSIVE keep(id) AS (
			SELECT leaf FROM rc_sessions WHERE name != ?1 AND leaf IS NOT NULL
			UNION SELECT e.parent FROM rc_entries e JOIN rc_sessions s ON s.name = e.session
				WHERE e.session != ?1 AND e.parent IS NOT NULL
			UNION SELECT e.parent FROM rc_entries e JOIN keep ON e.id = keep.id WHERE e.parent IS NOT NULL)
		DELETE FROM rc_entries WHERE (session = ?1 OR session NOT IN (SELECT name FROM rc_sessions WHERE name != ?1))
			AND id NOT IN (SELECT id FROM keep)`, session)
	if err != nil {
		return 0, fmt.Errorf("delete session %s: %w", session, err)
	}
	n, _ := res.RowsAffected()
	for _, q := range []string{
		`DELETE FROM rc_trust WHERE session = ?`,
		`DELETE FROM rc_transcripts WHERE session = ?`,
		`DELETE FROM rc_client_keys WHERE session = ?`,
		`DELETE FROM rc_sessions WHERE name = ?`,
		`DELETE FROM meta WHERE key IN ('` + livePrefix + `' || ?1, '` + endsPrefix + `' || ?1)`,
	} {
		if _, err := tx.ExecContext(ctx, q, session); err != nil {
			return 0, fmt.Errorf("delete session %s: %w", session, err)
		}
	}
	return int(n), nil
}

// deleteEnded deletes every session that has ended: made for a connection
// whose process detached or died.
func deleteEnded(ctx context.Context, tx *store.Tx) (sessions, entries int, err error) {
	rows, err := tx.QueryContext(ctx, `SELECT substr(e.key, ?), coalesce(l.value, '')
		FROM meta e LEFT JOIN meta l ON l.key = ? || substr(e.key, ?)
		WHERE e.key >= ? AND e.key < ?`, len(endsPrefix)+1, livePrefix, len(endsPrefix)+1, endsPrefix, endsPrefix+"\xff")
	if err != nil {
		return 0, 0, err
	}
	var ended []string
	for rows.Next() {
		var name, pid string
		if err := rows.Scan(&name, &pid); err != nil {
			rows.Close()
			return 0, 0, err
		}
		if p, _ := strconv.Atoi(pid); !store.ProcessAlive(p) {
			ended = append(ended, name)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, 0, err
	}
	for _, name := range ended {
		n, err := deleteSession(ctx, tx, name)
		if err != nil {
			return 0, 0, err
		}
		sessions++
		entries += n
	}
	return sessions, entries, nil
}
