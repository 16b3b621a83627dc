package readcache

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/tokens"
	"github.com/freshctx/freshctx/internal/workspace"
)

// Output limits of one read, as a plain agent read tool has.
const (
	DefaultMaxLines = 2000
	DefaultMaxBytes = 50 << 10
)

// ErrNoSession and ErrNoEntry are wrapped when a name or id names nothing.
var (
	ErrNoSession = errors.New("no such session")
	ErrNoEntry   = errors.New("no such entry")
)

// Service serves reads and manages sessions of one workspace.
type Service struct {
	WS    *workspace.Workspace
	Store *store.Store
	// Cwd is the caller's working directory, for paths they type.
	Cwd string
	// Now is the clock; default time.Now.
	Now func() time.Time
	// MaxLines and MaxBytes bound one read's output; 0 means the defaults.
	MaxLines, MaxBytes int
	// TokensLater says the caller does not show an answer's token counts:
	// a note (unchanged, unchanged_range) is then kept with its count not
	// made (ReadResult.Tokens NotCounted), and so is an answer that served
	// what a plain read tool would (its PlainTokens too), when the version
	// is kept to count it from; Status makes them. A choice between a note
	// and the text is still the one an exact count makes (noteCheaper).
	// Loading the tokenizer's vocabulary was most of the time of a process
	// that answers one read (a first read through Claude Code's hook: 28-31
	// ms with the counts made, 8 ms without).
	TokensLater bool
}

// NotCounted is the token count of a note left for Status to make.
const NotCounted = tokens.NotCounted

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) maxLines() int {
	if s.MaxLines > 0 {
		return s.MaxLines
	}
	return DefaultMaxLines
}

func (s *Service) maxBytes() int {
	if s.MaxBytes > 0 {
		return s.MaxBytes
	}
	return DefaultMaxBytes
}

// entry is one node of a session tree.
type entry struct {
	id, parent          int64
	depth               int
	session, kind, path string
	start, end, lines   int
	version, mode       string
	tokensFull, served  int
	servedText          string // the note served, when served is NotCounted
	delivered           bool
	// revoked marks an answer that leaned on trust a revoked read gave
	// (Revoke): the model's hold on the file is unknown from it on.
	revoked bool
	shown   string // showRange, showWhole or showNotice
}

// What a read entry showed the model, and so how it changes the picture.
const (
	showRange  = "range"  // lines start..end of version: painted over the picture
	showWhole  = "whole"  // the whole version: the picture becomes exactly it
	showNotice = "notice" // no content (binary, not text): the picture is erased
)

// shownBy applies a delivered read entry to the picture of its path. An
// unchanged answer showed nothing new: when the picture already holds what
// it vouched for, the lines stay credited to the read that delivered them,
// so the next unchanged names that read, not a note.
func shownBy(p Picture, e entry) Picture {
	if e.mode == ModeUnchanged || e.mode == ModeUnchangedRange {
		if w, ok := p.Whole(); ok && e.shown == showWhole && w.Version == e.version && w.Lines == e.lines {
			return p
		}
		if c, ok := p.Covers(e.start, e.end); ok && e.shown != showWhole && c.Version == e.version {
			return p
		}
	}
	switch e.shown {
	case showWhole:
		return Picture{{Start: 1, End: e.lines, Version: e.version, Lines: e.lines, Entry: e.id}}
	case showNotice:
		return nil
	}
	if e.version == "" || e.start <= 0 || e.end < e.start {
		return p
	}
	return p.Paint(Span{Start: e.start, End: e.end, Version: e.version, Lines: e.lines, Entry: e.id})
}

// sessionLeaf returns a session's current leaf (0 when empty), creating the
// session when create is set.
func sessionLeaf(ctx context.Context, tx *store.Tx, name, root string, create bool) (int64, error) {
	var leaf sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT leaf FROM rc_sessions WHERE name = ?`, name).Scan(&leaf)
	if errors.Is(err, sql.ErrNoRows) {
		if !create {
			return 0, fmt.Errorf("session %q: %w", name, ErrNoSession)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO rc_sessions (name, root, created_at) VALUES (?, ?, ?)`, name, root, tx.Now.UnixNano())
		return 0, err
	}
	return leaf.Int64, err
}

// appendEntry adds e under the session's leaf and makes it the leaf.
func appendEntry(ctx context.Context, tx *store.Tx, e *entry) error {
	var depth int
	if e.parent != 0 {
		if err := tx.QueryRowContext(ctx, `SELECT depth FROM rc_entries WHERE id = ?`, e.parent).Scan(&depth); err != nil {
			return fmt.Errorf("parent entry %d: %w", e.parent, err)
		}
	}
	e.depth = depth + 1
	var parent any
	if e.parent != 0 {
		parent = e.parent
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO rc_entries (session, parent, depth, kind, path, range_start, range_end,
		version, lines, mode, tokens_full, tokens_served, delivered, created_at, shown, served_text)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.session, parent, e.depth, e.kind, e.path, e.start, e.end, e.version, e.lines, e.mode, e.tokensFull, e.served,
		e.kind != "read", tx.Now.UnixNano(), cmp.Or(e.shown, showRange), e.servedText)
	if err != nil {
		return fmt.Errorf("append entry: %w", err)
	}
	if e.id, err = res.LastInsertId(); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE rc_sessions SET leaf = ? WHERE name = ?`, e.id, e.session)
	return err
}

// picture loads what the model has seen of a path at the session's leaf.
func picture(ctx context.Context, tx *store.Tx, session, path string) (Picture, error) {
	var raw string
	err := tx.QueryRowContext(ctx, `SELECT views FROM rc_trust WHERE session = ? AND path = ?`, session, path).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load trust: %w", err)
	}
	var p Picture
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return nil, nil // a damaged picture trusts nothing
	}
	return p, nil
}

func savePicture(ctx context.Context, tx *store.Tx, session, path string, p Picture) error {
	if len(p) == 0 {
		_, err := tx.ExecContext(ctx, `DELETE FROM rc_trust WHERE session = ? AND path = ?`, session, path)
		return err
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO rc_trust (session, path, views) VALUES (?, ?, ?)
		ON CONFLICT(session, path) DO UPDATE SET views = excluded.views`, session, path, string(raw))
	return err
}

// newName makes a session name.
func newName() string {
	b := make([]byte, 4)
	rand.Read(b)
	return "s-" + hex.EncodeToString(b)
}
