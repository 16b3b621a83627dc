package registry

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/workspace"
)

// ErrNotGit is returned for a workspace that is not a git work tree: the
// registry lists files with git.
var ErrNotGit = errors.New("the registry needs a git repository")

// ErrNotFound is wrapped when a path is not in the registry.
var ErrNotFound = errors.New("not in the registry")

// DefaultMaxFileSize is the size limit when none is configured.
const DefaultMaxFileSize = 1 << 20

// Service keeps the registry of one workspace.
type Service struct {
	WS    *workspace.Workspace
	Store *store.Store
	// Cwd is the caller's working directory, for paths they type.
	Cwd string
	// Now is the clock; default time.Now.
	Now func() time.Time
	// MaxFileSize: larger files are skipped; 0 means DefaultMaxFileSize.
	MaxFileSize int64
	// Progress, when set, receives a status line during long hashing.
	Progress io.Writer
	// FS is the file system files are read from; nil is the real one.
	FS freshness.FS
	// RacyWindow overrides freshness.RacyWindow (tests on a file system with
	// a known timestamp granularity); 0 keeps the default.
	RacyWindow time.Duration
	// WholeStatusUnder: a registry with fewer rows asks git for one whole
	// status, a larger one only narrow questions; 0 means 2,000, negative
	// never (tests of the narrow way).
	WholeStatusUnder int
	// Looking says the caller writes no row (registry verify without
	// --apply): the scan index is made current in memory and not saved,
	// as with a store opened for reading only (see reading).
	Looking bool
}

// reading reports whether the service saves no scan index: its caller
// only looks, or its store cannot be written. A scan index many paths
// behind the rows is then patched as it streams, not decoded whole to be
// saved: saving it is the next writer's (a sync), whose rows made it
// behind, and a look pays only for what it reads.
func (s *Service) reading() bool { return s.Looking || s.Store.ReadOnly() }

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) maxSize() int64 {
	if s.MaxFileSize > 0 {
		return s.MaxFileSize
	}
	return DefaultMaxFileSize
}

func (s *Service) git() (*workspace.Git, error) {
	if s.WS.Git == nil {
		return nil, fmt.Errorf("%w: %s is not inside one", ErrNotGit, s.WS.Root)
	}
	return s.WS.Git, nil
}

func (s *Service) snapshot(ctx context.Context) (*freshness.Snapshot, error) {
	return freshness.NewSnapshot(ctx, s.WS, nil, freshness.Options{
		Cache: freshness.StoreCache{S: s.Store}, Now: s.now, FS: s.FS, RacyWindow: s.RacyWindow,
	})
}

// row is one registry entry.
type row struct {
	path, digest, lang string
	size               int64
	worktree           int // gitClean, gitChanged or gitUntracked
	summary            sql.NullString
	stale              bool
	summaryAt          sql.NullInt64
	digestAtSummary    sql.NullString
	summaryBlob        sql.NullString
	added, removed     int
	summaryBy          string
	source             Source
}

const rowColumns = `path, digest, size, lang, worktree, summary, summary_stale, summary_updated_at,
	digest_at_summary, summary_blob, lines_added, lines_removed, summary_by,
	summary_model, summary_endpoint, summary_prompt`

func scanRow(sc interface{ Scan(...any) error }) (row, error) {
	var r row
	err := sc.Scan(&r.path, &r.digest, &r.size, &r.lang, &r.worktree, &r.summary, &r.stale, &r.summaryAt,
		&r.digestAtSummary, &r.summaryBlob, &r.added, &r.removed, &r.summaryBy,
		&r.source.Model, &r.source.Endpoint, &r.source.Prompt)
	return r, err
}

// state is what the last verification recorded.
type state struct {
	lastSHA string
	clean   bool
	exists  bool
}

// readState reads what the last verification of the registry recorded.
func (s *Service) readState(ctx context.Context) (state, error) {
	var st state
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		st, err = loadState(ctx, tx, s.WS.Root)
		return err
	})
	return st, err
}

func loadState(ctx context.Context, tx *store.Tx, root string) (state, error) {
	var st state
	err := tx.QueryRowContext(ctx, `SELECT last_verified_sha, verified_clean FROM registry_state WHERE root = ?`, root).
		Scan(&st.lastSHA, &st.clean)
	if errors.Is(err, sql.ErrNoRows) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read registry state: %w", err)
	}
	st.exists = true
	return st, nil
}

func saveState(ctx context.Context, tx *store.Tx, root, sha string, clean bool) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO registry_state (root, last_verified_sha, verified_clean, verified_at)
		VALUES (?, ?, ?, ?) ON CONFLICT(root) DO UPDATE SET last_verified_sha = excluded.last_verified_sha,
		verified_clean = excluded.verified_clean, verified_at = excluded.verified_at`, root, sha, clean, tx.Now.UnixNano())
	if err != nil {
		return fmt.Errorf("write registry state: %w", err)
	}
	return nil
}

// countRows counts the rows of root: the count the triggers that count
// gen keep beside it (registry_gen.files), where a count(*) walked every
// page of the table's smallest index (6 ms at 100,000 rows, more in a
// process whose page cache is cold).
func countRows(ctx context.Context, tx *store.Tx, root string) (int, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT files FROM registry_gen WHERE root = ?`, root).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil // no row was ever written
	}
	return n, err
}

// loadRows reads the rows of the given paths (all rows when paths is nil).
func loadRows(ctx context.Context, tx *store.Tx, root string, paths []string) (map[string]row, error) {
	out := map[string]row{}
	if paths == nil {
		return out, scanRows(ctx, tx, out, `SELECT `+rowColumns+` FROM registry_files WHERE root = ?`, root)
	}
	for i := 0; i < len(paths); i += 500 {
		part := paths[i:min(i+500, len(paths))]
		args := []any{root}
		for _, p := range part {
			args = append(args, p)
		}
		q := `SELECT ` + rowColumns + ` FROM registry_files WHERE root = ? AND path IN (?` + strings.Repeat(",?", len(part)-1) + `)`
		if err := scanRows(ctx, tx, out, q, args...); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func scanRows(ctx context.Context, tx *store.Tx, out map[string]row, q string, args ...any) error {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("read registry: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanRow(rows)
		if err != nil {
			return err
		}
		out[r.path] = r
	}
	return rows.Err()
}

// How git saw a row's file when it was hashed (registry_files.worktree).
const (
	gitClean     = 0
	gitChanged   = 1 // tracked, changed in the work tree
	gitUntracked = 2 // untracked, or (in an older store) either
)

// worktreePaths lists the rows whose digest came from a work-tree change,
// those of tracked files (changed) and those of untracked ones apart.
func worktreePaths(ctx context.Context, tx *store.Tx, root string) (changed, untracked []string, err error) {
	for _, q := range []struct {
		state int
		out   *[]string
	}{{gitChanged, &changed}, {gitUntracked, &untracked}} {
		// One query a state: each has a partial index of its own.
		rows, err := tx.QueryContext(ctx, `SELECT path FROM registry_files WHERE root = ? AND worktree = ?`, root, q.state)
		if err != nil {
			return nil, nil, err
		}
		for rows.Next() {
			var p string
			if err := rows.Scan(&p); err != nil {
				rows.Close()
				return nil, nil, err
			}
			*q.out = append(*q.out, p)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, nil, err
		}
	}
	return changed, untracked, nil
}
