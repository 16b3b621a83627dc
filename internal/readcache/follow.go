package readcache

import (
	"context"
	"database/sql"
	"errors"

	"github.com/freshctx/freshctx/internal/store"
)

// A client that keeps its own conversation tree (pi) tells freshctx where
// its model stands by naming a point of that tree: the key of the tool call
// whose result carried an entry's answer (ReadRequest.ClientKey, Key). The
// client's tree is the truth; the session follows it.

// Follow puts a session's leaf where the client says its model stands: at
// the entry keyed key in session from (the session that recorded it: this
// one, or the one this conversation was forked from), or, with key "",
// after a barrier (a new conversation, a compaction, a branch none of whose
// reads reached freshctx). A session not yet known is forked from the
// keyed entry, or started empty. A key freshctx does not know, or whose
// entry is not on the session's tree, puts a barrier instead: a move
// freshctx cannot follow leaves the model with nothing trusted, never with
// the picture of another branch. The answer is the session's leaf.
func (s *Service) Follow(ctx context.Context, session, from, key string) (int64, error) {
	if leaf, ok, err := s.followed(ctx, session, from, key); ok || err != nil {
		return leaf, err
	}
	var leaf int64
	err := s.Store.Update(ctx, func(tx *store.Tx) error {
		cur, err := sessionLeaf(ctx, tx, session, s.WS.Root, false)
		exists := !errors.Is(err, ErrNoSession)
		if err != nil && exists {
			return err
		}
		at, err := keyedEntry(ctx, tx, from, key)
		if err != nil {
			return err
		}
		if !exists {
			if _, err := sessionLeaf(ctx, tx, session, s.WS.Root, true); err != nil || at == 0 {
				return err
			}
			leaf = at
			return moveLeaf(ctx, tx, session, at) // a fork at the keyed entry
		}
		if at == cur && at != 0 {
			leaf = cur
			return nil
		}
		if at != 0 {
			if err := s.onTree(ctx, tx, session, at); err == nil {
				leaf = at
				return moveLeaf(ctx, tx, session, at)
			} else if !errors.Is(err, ErrNoEntry) {
				return err
			}
		}
		leaf, err = barrierAt(ctx, tx, session, cur)
		return err
	})
	return leaf, err
}

// followed reports whether the session already stands where Follow would
// put it (the common case: the client names the read it made last), read
// without taking the store's write lock.
func (s *Service) followed(ctx context.Context, session, from, key string) (leaf int64, ok bool, err error) {
	err = s.Store.View(ctx, func(tx *store.Tx) error {
		cur, err := sessionLeaf(ctx, tx, session, s.WS.Root, false)
		if errors.Is(err, ErrNoSession) {
			return nil
		}
		if err != nil {
			return err
		}
		if key == "" {
			var kind string
			if cur != 0 {
				if err := tx.QueryRowContext(ctx, `SELECT kind FROM rc_entries WHERE id = ?`, cur).Scan(&kind); err != nil {
					return err
				}
			}
			leaf, ok = cur, cur == 0 || kind == "compaction"
			return nil
		}
		at, err := keyedEntry(ctx, tx, from, key)
		leaf, ok = cur, err == nil && at != 0 && at == cur
		return err
	})
	return leaf, ok, err
}

// keyedEntry is the entry a client's key names in session, 0 when the key
// or its entry is unknown (the store was made anew, the session deleted).
func keyedEntry(ctx context.Context, tx *store.Tx, session, key string) (int64, error) {
	if key == "" {
		return 0, nil
	}
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT k.entry FROM rc_client_keys k JOIN rc_entries e ON e.id = k.entry
		WHERE k.session = ? AND k.key = ?`, session, key).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return id, err
}

// Key names the session's leaf by a client's key: the point of the
// client's tree the leaf stands for (a tool call whose result changed
// what the model holds without a read: an edit).
func (s *Service) Key(ctx context.Context, session, key string) (int64, error) {
	var leaf int64
	err := s.Store.Update(ctx, func(tx *store.Tx) error {
		var err error
		if leaf, err = sessionLeaf(ctx, tx, session, s.WS.Root, true); err != nil || leaf == 0 {
			return err
		}
		return keyEntry(ctx, tx, session, key, leaf)
	})
	return leaf, err
}

func keyEntry(ctx context.Context, tx *store.Tx, session, key string, entry int64) error {
	if key == "" {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO rc_client_keys (session, key, entry) VALUES (?, ?, ?)
		ON CONFLICT(session, key) DO UPDATE SET entry = excluded.entry`, session, key, entry)
	return err
}

// moveLeaf sets the session's leaf and rebuilds its trust.
func moveLeaf(ctx context.Context, tx *store.Tx, session string, at int64) error {
	if _, err := tx.ExecContext(ctx, `UPDATE rc_sessions SET leaf = ? WHERE name = ?`, at, session); err != nil {
		return err
	}
	return rebuild(ctx, tx, session, at)
}

// barrierAt puts a compaction at the leaf unless the leaf is one already
// (or the session is empty): following a client to "nothing trusted" over
// and over adds one barrier, not one per call.
func barrierAt(ctx context.Context, tx *store.Tx, session string, leaf int64) (int64, error) {
	if leaf == 0 {
		return 0, nil
	}
	var kind string
	if err := tx.QueryRowContext(ctx, `SELECT kind FROM rc_entries WHERE id = ?`, leaf).Scan(&kind); err != nil {
		return 0, err
	}
	if kind == "compaction" {
		return leaf, nil
	}
	e := &entry{session: session, parent: leaf, kind: "compaction"}
	if err := appendEntry(ctx, tx, e); err != nil {
		return 0, err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM rc_trust WHERE session = ?`, session)
	return e.id, err
}
