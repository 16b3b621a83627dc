package readcache

import (
	"context"
	"fmt"
	"sort"

	"github.com/freshctx/freshctx/internal/store"
)

// Tracked is a file the model has seen in this context, and which lines.
type Tracked struct {
	Path  string   `json:"path"`
	Lines [][2]int `json:"lines"`
	Whole bool     `json:"whole"`
}

// Status describes a session at its leaf.
type Status struct {
	Session string    `json:"session"`
	Leaf    int64     `json:"leaf"`
	Tracked []Tracked `json:"tracked"`
	// Window is where trust is replayed from: the entries after the latest
	// compaction on the path to the leaf.
	Window struct {
		Entries    int `json:"entries"`
		StartIndex int `json:"start_index"`
	} `json:"window"`
	Modes        map[string]int `json:"modes"`
	TokensServed int            `json:"tokens_served"`
	TokensPlain  int            `json:"tokens_plain"`
	TokensSaved  int            `json:"tokens_saved"`
}

// Status reports what the session's leaf trusts, its replay window, and
// the reads on its path by mode with the tokens they saved.
func (s *Service) Status(ctx context.Context, session string) (*Status, error) {
	st := &Status{Session: session, Tracked: []Tracked{}, Modes: map[string]int{}}
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		leaf, err := sessionLeaf(ctx, tx, session, s.WS.Root, false)
		if err != nil {
			return err
		}
		st.Leaf = leaf
		path, err := pathTo(ctx, tx, leaf)
		if err != nil {
			return err
		}
		win := window(path)
		st.Window.Entries = len(win)
		st.Window.StartIndex = len(path) - len(win) + 1
		for _, e := range path {
			if e.kind != "read" {
				continue
			}
			st.Modes[e.mode]++
			if e.tokensFull == NotCounted {
				if e.tokensFull, err = s.countPlain(ctx, tx, &e); err != nil {
					return err
				}
			}
			if e.served == NotCounted {
				e.served = e.tokensFull // it served the plain text (record)
				if e.servedText != "" {
					e.served = countTokens(e.servedText)
				}
			}
			st.TokensServed += e.served
			st.TokensPlain += e.tokensFull
		}
		st.TokensSaved = max(st.TokensPlain-st.TokensServed, 0)
		return tracked(ctx, tx, session, st)
	})
	if err != nil {
		return nil, fmt.Errorf("session status: %w", err)
	}
	return st, nil
}

func tracked(ctx context.Context, tx *store.Tx, session string, st *Status) error {
	rows, err := tx.QueryContext(ctx, `SELECT path FROM rc_trust WHERE session = ?`, session)
	if err != nil {
		return err
	}
	var paths []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return err
		}
		paths = append(paths, p)
	}
	rows.Close()
	sort.Strings(paths)
	for _, p := range paths {
		pic, err := picture(ctx, tx, session, p)
		if err != nil {
			return err
		}
		t := Tracked{Path: p}
		_, t.Whole = pic.Whole()
		for _, x := range pic {
			t.Lines = append(t.Lines, [2]int{x.Start, x.End})
		}
		st.Tracked = append(st.Tracked, t)
	}
	return nil
}

// GCResult says what gc removed.
type GCResult struct {
	// Sessions and Entries count ended sessions deleted (see Attach).
	Sessions   int   `json:"sessions"`
	Entries    int   `json:"entries"`
	Versions   int   `json:"versions"`
	Blobs      int   `json:"blobs"`
	BytesFreed int64 `json:"bytes_freed"`
}

// GC deletes the sessions that ended with their connection, then stored
// file versions no entry refers to, and any stored output nothing refers
// to. Versions an entry refers to are kept however old they are.
func (s *Service) GC(ctx context.Context) (*GCResult, error) {
	res := &GCResult{}
	err := s.Store.Update(ctx, func(tx *store.Tx) error {
		var err error
		if res.Sessions, res.Entries, err = deleteEnded(ctx, tx); err != nil {
			return err
		}
		r, err := tx.ExecContext(ctx, `DELETE FROM rc_versions WHERE NOT EXISTS
			(SELECT 1 FROM rc_entries WHERE rc_entries.version = rc_versions.digest)`)
		if err != nil {
			return err
		}
		n, _ := r.RowsAffected()
		res.Versions = int(n)
		res.Blobs, res.BytesFreed, err = tx.DeleteOrphanBlobs()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("session gc: %w", err)
	}
	return res, nil
}

// countPlain makes the count a read left for later (TokensLater): what a
// plain read tool would have sent for the lines it showed, from the
// version kept. A version no longer kept (its blob lost) counts nothing.
func (s *Service) countPlain(ctx context.Context, tx *store.Tx, e *entry) (int, error) {
	content, ok, err := s.versionContent(ctx, tx, e.version)
	if err != nil {
		return 0, fmt.Errorf("count entry %d: %w", e.id, err)
	}
	if !ok {
		return 0, nil
	}
	lines := splitLines(content)
	start, end := max(e.start, 1), min(e.end, len(lines))
	if end < start {
		return 0, nil
	}
	return countTokens(numbered(lines, start, end)), nil
}
