package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Errors wrapped by Open and by the methods of Store.
var (
	ErrCorrupt     = errors.New("store is corrupt or not a freshctx database")
	ErrLocked      = errors.New("store is locked by another process")
	ErrNewerSchema = errors.New("store was written by a newer freshctx")
	ErrNotFound    = errors.New("not found")
)

// DirName is the folder, under the workspace root, of the default store.
const DirName = ".freshctx"

// DefaultPath is the store used when neither --store nor FRESHCTX_STORE is set.
func DefaultPath(root string) string {
	return filepath.Join(root, DirName, "freshctx.db")
}

// Store is an open database plus its blob area. It is safe for concurrent use.
type Store struct {
	db    *sql.DB
	path  string
	blobs string // directory of the blob area
	now   func() time.Time
}

// Options tune Open; the zero value is what the CLI uses.
type Options struct {
	// BusyTimeout is how long a writer waits for another; default 10s.
	BusyTimeout time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Open opens or creates the store at path, creating its directory (0700) and
// database file (0600), and migrates it to the current schema.
func Open(ctx context.Context, path string, opt Options) (*Store, error) {
	if opt.BusyTimeout == 0 {
		opt.BusyTimeout = 10 * time.Second
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := prepareFiles(abs); err != nil {
		return nil, err
	}
	// Switching a new database to WAL and migrating it can meet SQLITE_BUSY
	// without SQLite's busy handler being consulted (two processes creating
	// the store at once), so opening retries until the busy timeout.
	deadline := time.Now().Add(opt.BusyTimeout)
	for attempt := 1; ; attempt++ {
		s, err := openOnce(ctx, abs, opt)
		if err == nil || !errors.Is(err, ErrLocked) || time.Now().After(deadline) {
			return s, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(min(attempt, 10)) * 10 * time.Millisecond):
		}
	}
}

func openOnce(ctx context.Context, abs string, opt Options) (*Store, error) {
	db, err := sql.Open("sqlite", dsn(abs, opt.BusyTimeout))
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", abs, err)
	}
	s := &Store{db: db, path: abs, blobs: filepath.Join(filepath.Dir(abs), "blobs"), now: opt.Now}
	if err := s.init(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", abs, classify(err))
	}
	return s, nil
}

func dsn(path string, busy time.Duration) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// prepareFiles creates the directory and an empty database file with tight
// permissions before SQLite sees them; SQLite gives its WAL and shared-memory
// files the database file's permissions.
func prepareFiles(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create store directory %s: %w", dir, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	return f.Close()
}

// init verifies the connection settings and applies pending migrations.
func (s *Store) init(ctx context.Context) error {
	var mode string
	if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return classify(err)
	}
	if mode != "wal" {
		return fmt.Errorf("journal mode is %q, want wal", mode)
	}
	var fk int
	if err := s.db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
		return classify(err)
	}
	if fk != 1 {
		return errors.New("foreign keys are not enabled")
	}
	return s.migrate(ctx)
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Now is the store's clock.
func (s *Store) Now() time.Time { return s.now() }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// DB exposes the database for read-only queries of feature packages.
func (s *Store) DB() *sql.DB { return s.db }

// classify wraps SQLite failures that mean "corrupt" or "locked" in the
// package's sentinel errors, keeping the original for context.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return fmt.Errorf("%w (%v); move the file aside to start a new store", ErrCorrupt, err)
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("%w (%v); try again when it finishes", ErrLocked, err)
		}
	}
	return err
}
