package readcache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/freshctx/freshctx/internal/store"
)

// SessionResult names a session and its leaf.
type SessionResult struct {
	Session string `json:"session"`
	Leaf    int64  `json:"leaf"`
	Entry   int64  `json:"entry,omitempty"`
}

// New starts an empty session; name "" makes one up.
func (s *Service) New(ctx context.Context, name string) (*SessionResult, error) {
	if name == "" {
		name = newName()
	}
	err := s.Store.Update(ctx, func(tx *store.Tx) error { return createSession(ctx, tx, name, s.WS.Root) })
	if err != nil {
		return nil, err
	}
	return &SessionResult{Session: name}, nil
}

// createSession makes an empty session, refusing a name in use: taking it
// over would move another session's leaf, and an MCP server or an agent's
// conversation reading through it would lose what it was shown.
func createSession(ctx context.Context, tx *store.Tx, name, root string) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM rc_sessions WHERE name = ?`, name).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("session %q already exists", name)
	}
	_, err := sessionLeaf(ctx, tx, name, root, true)
	return err
}

// Compact records a compaction at the leaf: no trust from before it is
// used on this path again.
func (s *Service) Compact(ctx context.Context, session string) (*SessionResult, error) {
	return s.barrier(ctx, session, "compaction", true)
}

// CompactExisting is Compact for a session that may not exist, as an
// agent's hook names one: a session nothing was read in holds nothing to
// forget, and is not made (the answer is nil then).
func (s *Service) CompactExisting(ctx context.Context, session string) (*SessionResult, error) {
	res, err := s.barrier(ctx, session, "compaction", false)
	if errors.Is(err, ErrNoSession) {
		return nil, nil
	}
	return res, err
}

// Mark appends an opaque entry (an integration's own event) at the leaf.
func (s *Service) Mark(ctx context.Context, session, note string) (*SessionResult, error) {
	return s.barrier(ctx, session, "opaque", true)
}

func (s *Service) barrier(ctx context.Context, session, kind string, create bool) (*SessionResult, error) {
	res := &SessionResult{Session: session}
	err := s.Store.Update(ctx, func(tx *store.Tx) error {
		leaf, err := sessionLeaf(ctx, tx, session, s.WS.Root, create)
		if err != nil {
			return err
		}
		e := &entry{session: session, parent: leaf, kind: kind}
		if err := appendEntry(ctx, tx, e); err != nil {
			return err
		}
		res.Entry, res.Leaf = e.id, e.id
		if kind == "compaction" {
			_, err = tx.ExecContext(ctx, `DELETE FROM rc_trust WHERE session = ?`, session)
		}
		return err
	})
	return res, err
}

// Refresh forces the next read of a scope (a whole file, or lines) to
// baseline: what the model was shown of it is forgotten. It is an entry, so
// it survives a restart and follows the tree.
func (s *Service) Refresh(ctx context.Context, session, spec string) (*SessionResult, error) {
	path, rng, err := s.parseTarget(spec)
	if err != nil {
		return nil, err
	}
	res := &SessionResult{Session: session}
	err = s.Store.Update(ctx, func(tx *store.Tx) error {
		leaf, err := sessionLeaf(ctx, tx, session, s.WS.Root, true)
		if err != nil {
			return err
		}
		e := &entry{session: session, parent: leaf, kind: "invalidation", path: path, start: rng.start, end: rng.end}
		if err := appendEntry(ctx, tx, e); err != nil {
			return err
		}
		res.Entry, res.Leaf = e.id, e.id
		p, err := picture(ctx, tx, session, path)
		if err != nil {
			return err
		}
		return savePicture(ctx, tx, session, path, forget(p, *e))
	})
	return res, err
}

// Forget erases what the model holds of a file in session: the model was
// given, or made, content of it that freshctx cannot vouch for (a client's
// read it could not match to the bytes, cut or not text), so the next
// read serves content. Like a refresh it is an entry, so it follows the
// tree; it is made only where there is a picture to erase. A path outside
// the root, or a session that does not exist, holds nothing to forget.
func (s *Service) Forget(ctx context.Context, session, path string) error {
	return s.pictureEntry(ctx, session, path, "", func(Picture) Picture { return nil })
}

// Edited records that the model changed a file itself (its Edit, Write,
// or a patch): it now believes its change, not what it was shown, so no
// note may stand for what it was shown of the file until it is shown the
// file again; a diff from what it was shown may. Like Forget it is an
// entry, made only where there is a picture or a read of the file waiting
// for its delivery (pictureEntry).
func (s *Service) Edited(ctx context.Context, session, path string) error {
	return s.pictureEntry(ctx, session, path, modeEdited, Picture.MarkEdited)
}

// modeEdited is the mode of an invalidation entry that marks the picture
// edited (Edited) rather than erasing it.
const modeEdited = "edited"

// pictureEntry appends an invalidation entry of mode ("" erases, modeEdited
// marks) about path to session, where the session holds a picture of path,
// and applies change to that picture. Where it holds none, the entry is
// still made if a read of path waits for its delivery (tool calls made at
// once): that read's delivery paints the picture the change came after,
// and the change must apply to it; the entry since the read makes the
// delivery replay the session (clearSince), in order.
func (s *Service) pictureEntry(ctx context.Context, session, path, mode string, change func(Picture) Picture) error {
	rel, err := s.WS.Rel(path, s.Cwd)
	if err != nil {
		return nil
	}
	return s.Store.Update(ctx, func(tx *store.Tx) error {
		leaf, err := sessionLeaf(ctx, tx, session, s.WS.Root, false)
		if errors.Is(err, ErrNoSession) {
			return nil
		}
		if err != nil {
			return err
		}
		p, err := picture(ctx, tx, session, rel)
		if err != nil {
			return err
		}
		if len(p) == 0 {
			if waiting, err := readWaiting(ctx, tx, session, rel); err != nil || !waiting {
				return err
			}
		}
		e := &entry{session: session, parent: leaf, kind: "invalidation", path: rel, mode: mode}
		if err := appendEntry(ctx, tx, e); err != nil {
			return err
		}
		return savePicture(ctx, tx, session, rel, change(p))
	})
}

// readWaiting reports whether a read of path in session waits for its
// delivery (neither delivered nor taken back). The condition repeats the
// partial index's (migration 25) so that SQLite may use it.
func readWaiting(ctx context.Context, tx *store.Tx, session, path string) (bool, error) {
	var waiting bool
	err := tx.QueryRowContext(ctx, readWaitingQuery, session, path).Scan(&waiting)
	return waiting, err
}

const readWaitingQuery = `SELECT EXISTS (SELECT 1 FROM rc_entries
	WHERE session = ? AND path = ? AND kind = 'read' AND delivered = 0 AND revoked = 0)`

// forget applies an invalidation entry to a picture.
func forget(p Picture, e entry) Picture {
	if e.start == 0 {
		return nil
	}
	end := e.end
	if end == 0 {
		end = int(^uint(0) >> 1)
	}
	return p.Erase(e.start, end)
}

// Checkout moves the session's leaf to an entry of its tree and rebuilds
// the trust of that leaf from the entries on its path.
func (s *Service) Checkout(ctx context.Context, session string, id int64) (*SessionResult, error) {
	err := s.Store.Update(ctx, func(tx *store.Tx) error {
		if _, err := sessionLeaf(ctx, tx, session, s.WS.Root, false); err != nil {
			return err
		}
		if err := s.onTree(ctx, tx, session, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE rc_sessions SET leaf = ? WHERE name = ?`, id, session); err != nil {
			return err
		}
		return rebuild(ctx, tx, session, id)
	})
	if err != nil {
		return nil, err
	}
	return &SessionResult{Session: session, Leaf: id}, nil
}

// onTree checks that an entry belongs to the session's tree: it was made
// in the session, or it is on the path its first entries hang from (a fork).
func (s *Service) onTree(ctx context.Context, tx *store.Tx, session string, id int64) error {
	var owner string
	err := tx.QueryRowContext(ctx, `SELECT session FROM rc_entries WHERE id = ?`, id).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("entry %d: %w", id, ErrNoEntry)
	}
	if err != nil || owner == session {
		return err
	}
	var first sql.NullInt64 // the entry the session's own entries hang from
	err = tx.QueryRowContext(ctx, `SELECT parent FROM rc_entries WHERE session = ? ORDER BY id LIMIT 1`, session).Scan(&first)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if !first.Valid {
		err = tx.QueryRowContext(ctx, `SELECT leaf FROM rc_sessions WHERE name = ?`, session).Scan(&first)
		if err != nil {
			return err
		}
	}
	ancestors, err := pathTo(ctx, tx, first.Int64)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(ancestors, func(e entry) bool { return e.id == id }) {
		return fmt.Errorf("entry %d is not on session %q's tree: %w", id, session, ErrNoEntry)
	}
	return nil
}

// Fork starts a session whose path is the given one's up to entry at (its
// leaf when 0); from there the two grow apart and neither sees the other's
// entries. name "" makes one up; a name in use is refused. A read on that
// path still waiting for its delivery may reach the model before the fork
// was taken or after, so the fork cannot vouch for it: its first entries
// forget each file such a read is of (forkForgets), whenever the read is
// delivered.
func (s *Service) Fork(ctx context.Context, session string, at int64, name string) (*SessionResult, error) {
	if name == "" {
		name = newName()
	}
	res := &SessionResult{Session: name}
	err := s.Store.Update(ctx, func(tx *store.Tx) error {
		leaf, err := sessionLeaf(ctx, tx, session, s.WS.Root, false)
		if err != nil {
			return err
		}
		if at == 0 {
			at = leaf
		} else if err := s.onTree(ctx, tx, session, at); err != nil {
			return err
		}
		if err := createSession(ctx, tx, name, s.WS.Root); err != nil {
			return err
		}
		var leafArg any
		if at != 0 {
			leafArg = at
		}
		if _, err := tx.ExecContext(ctx, `UPDATE rc_sessions SET leaf = ? WHERE name = ?`, leafArg, name); err != nil {
			return err
		}
		if res.Leaf, err = forkForgets(ctx, tx, name, at); err != nil {
			return err
		}
		return rebuild(ctx, tx, name, res.Leaf)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// forkForgets appends to the new session name, whose leaf is at, an entry
// that forgets each file a read on the path to at is of that waits for its
// delivery, and returns the leaf after them. Without it the fork's picture
// would leave such a read out (its delivery paints its own session's) while
// a replay of the fork's path takes it in, and an edit the model made in the
// fork meanwhile, recorded only where a picture stands, would be lost to it.
func forkForgets(ctx context.Context, tx *store.Tx, name string, at int64) (int64, error) {
	path, err := pathTo(ctx, tx, at)
	if err != nil {
		return 0, err
	}
	leaf, forgotten := at, map[string]bool{}
	for _, e := range path {
		if e.kind != "read" || e.delivered || e.revoked || forgotten[e.path] {
			continue
		}
		forgotten[e.path] = true
		f := &entry{session: name, parent: leaf, kind: "invalidation", path: e.path}
		if err := appendEntry(ctx, tx, f); err != nil {
			return 0, err
		}
		leaf = f.id
	}
	return leaf, nil
}

// pathTo returns the entries from the root to id, in order.
func pathTo(ctx context.Context, tx *store.Tx, id int64) ([]entry, error) {
	if id == 0 {
		return nil, nil
	}
	rows, err := tx.QueryContext(ctx, `WITH RECURSIVE up(id) AS (
			SELECT ? UNION ALL SELECT e.parent FROM rc_entries e JOIN up ON e.id = up.id WHERE e.parent IS NOT NULL)
		SELECT e.id, coalesce(e.parent, 0), e.depth, e.session, e.kind, e.path, e.range_start, e.range_end, e.lines,
			e.version, e.mode, e.tokens_full, e.tokens_served, e.delivered, e.revoked, e.shown, e.served_text
		FROM up JOIN rc_entries e ON e.id = up.id ORDER BY e.depth`, id)
	if err != nil {
		return nil, fmt.Errorf("walk session tree: %w", err)
	}
	defer rows.Close()
	var out []entry
	for rows.Next() {
		var e entry
		if err := rows.Scan(&e.id, &e.parent, &e.depth, &e.session, &e.kind, &e.path, &e.start, &e.end, &e.lines,
			&e.version, &e.mode, &e.tokensFull, &e.served, &e.delivered, &e.revoked, &e.shown, &e.servedText); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// window is the part of a path trust is built from: after its latest
// compaction.
func window(path []entry) []entry {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].kind == "compaction" {
			return path[i+1:]
		}
	}
	return path
}

// rebuilds counts replays, so tests can check that reads never need one.
var rebuilds atomic.Int64

// rebuild replays the window of the path to leaf into the session's trust.
func rebuild(ctx context.Context, tx *store.Tx, session string, leaf int64) error {
	rebuilds.Add(1)
	if _, err := tx.ExecContext(ctx, `DELETE FROM rc_trust WHERE session = ?`, session); err != nil {
		return err
	}
	path, err := pathTo(ctx, tx, leaf)
	if err != nil {
		return err
	}
	pics := map[string]Picture{}
	for _, e := range window(path) {
		switch {
		case e.kind == "read" && e.revoked:
			pics[e.path] = nil
		case e.kind == "read" && e.delivered:
			pics[e.path] = shownBy(pics[e.path], e)
		case e.kind == "invalidation" && e.mode == modeEdited:
			pics[e.path] = pics[e.path].MarkEdited()
		case e.kind == "invalidation":
			pics[e.path] = forget(pics[e.path], e)
		}
	}
	for p, pic := range pics {
		if err := savePicture(ctx, tx, session, p, pic); err != nil {
			return err
		}
	}
	return nil
}
