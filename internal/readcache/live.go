package readcache

import (
	"context"
	"strconv"
	"strings"

	"github.com/freshctx/freshctx/internal/store"
)

// A live session is one an MCP server is serving reads from. A hook that
// learns of a compaction (which it cannot tie to a server) compacts every
// live session of the store: more baseline reads than needed at worst,
// never a wrong answer.
const livePrefix = "readcache.live:"

// endsPrefix marks a session that lives as long as its server's connection
// (an MCP server made it): once no live process serves it, it has ended and
// session gc deletes it.
const endsPrefix = "readcache.ends:"

// Attach records that process pid serves reads from session; with ends,
// the session ends when that process detaches or dies.
func (s *Service) Attach(ctx context.Context, session string, pid int, ends bool) error {
	return s.Store.Update(ctx, func(tx *store.Tx) error {
		if _, err := sessionLeaf(ctx, tx, session, s.WS.Root, true); err != nil {
			return err
		}
		if ends {
			if err := tx.SetMeta(endsPrefix+session, "1"); err != nil {
				return err
			}
		}
		return tx.SetMeta(livePrefix+session, strconv.Itoa(pid))
	})
}

// Detach records that no process serves session any more.
func (s *Service) Detach(ctx context.Context, session string) error {
	return s.Store.Update(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, livePrefix+session)
		return err
	})
}

// CompactLive records a compaction in every session a running process
// serves, forgetting those whose process is gone, and names the compacted.
func (s *Service) CompactLive(ctx context.Context) ([]string, error) {
	live := map[string]int{}
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT key, value FROM meta WHERE key >= ? AND key < ?`, livePrefix, livePrefix+"\xff")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				return err
			}
			pid, _ := strconv.Atoi(v)
			live[strings.TrimPrefix(k, livePrefix)] = pid
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	var done []string
	for session, pid := range live {
		if !store.ProcessAlive(pid) {
			if err := s.Detach(ctx, session); err != nil {
				return done, err
			}
			continue
		}
		if _, err := s.Compact(ctx, session); err != nil {
			return done, err
		}
		done = append(done, session)
	}
	return done, nil
}

// End marks session ended, and every session whose name starts with
// prefix (when prefix is not empty: an agent's subagents, named after their
// conversation), so that session gc deletes them. A conversation an agent
// ended may be resumed, but its resumption is a reset (a barrier): nothing
// it trusted is needed any more. Sessions that do not exist are left alone.
func (s *Service) End(ctx context.Context, session, prefix string) error {
	return s.Store.Update(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta (key, value)
			SELECT ?1 || name, '1' FROM rc_sessions
			WHERE name = ?2 OR (?3 != '' AND substr(name, 1, length(?3)) = ?3)`, endsPrefix, session, prefix)
		return err
	})
}
