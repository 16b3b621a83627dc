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
)

// DirName is the folder, under the workspace root, of the default store.
const DirName = ".freshctx"

// DefaultPath is the store used when neither --store nor FRESHCTX_STORE is set.
func DefaultPath(root string) string {
	return filepath.Join(root, DirName, "freshctx.db")
}

// Store is an open database plus its blob area. It is safe for concurrent use.
type Store struct {
	db       *sql.DB
	path     string
	blobs    string // directory of the blob area
	now      func() time.Time
	readOnly bool
	// busyTimeout is how long a writer waits for another.
	busyTimeout time.Duration
}

// Options tune Open; the zero value is what the CLI uses for writing commands.
type Options struct {
	// BusyTimeout is how long a writer waits for another, first for the
	// writers' lock (writers.go), then for SQLite's; default 10s.
	BusyTimeout time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
	// ReadOnly opens an existing store for reading only: a missing store is
	// ErrNoStore (nothing is created), and a store that cannot be written
	// (read-only mount, no write permission, full disk) is still opened.
	ReadOnly bool
}

// Open opens or creates the store at path, creating its directory (0700) and
// database file (0600), and migrates it to the current schema. With
// Options.ReadOnly it creates nothing.
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
	if opt.ReadOnly {
		return openForReading(ctx, abs, opt)
	}
	_, derr := os.Stat(filepath.Dir(abs))
	_, ferr := os.Stat(abs)
	if errors.Is(ferr, os.ErrNotExist) {
		if err := orphanedLog(abs); err != nil {
			return nil, err
		}
	}
	if err := prepareFiles(abs); err != nil {
		return nil, err
	}
	st, err := openRetrying(ctx, abs, opt)
	full := err != nil && diskFull(filepath.Dir(abs))
	if err != nil && errors.Is(ferr, os.ErrNotExist) && (full || cannotWrite(err)) && empty(abs) {
		// A store this open began and could not write a byte of: nothing
		// half-made is left to be taken for a store that needs an upgrade.
		removeNew(abs, errors.Is(derr, os.ErrNotExist))
	}
	if full && !errors.Is(err, ErrFull) {
		err = fmt.Errorf("%w: %s has no space left (%v)", ErrFull, filepath.Dir(abs), err)
	}
	return st, err
}

// orphanedLog refuses to make a store at abs, where there is none, while
// the WAL of one is beside it: a store moved or deleted without the WAL
// its last command left (Leave). SQLite would read the pages that WAL
// holds over the new store's, and a WAL that is not a store's first holds
// only some of them. A store another process made meanwhile, with its
// own WAL, is there when looked for again: its WAL is not an orphan.
func orphanedLog(abs string) error {
	fi, err := os.Stat(abs + "-wal")
	if err != nil || fi.Size() == 0 {
		return nil
	}
	if _, err := os.Stat(abs); err == nil {
		return nil
	}
	return fmt.Errorf("open store %s: %w: the store is gone and its log (%s-wal) is still there, which SQLite would read "+
		"over a new store; put the store back, or move %s-wal and %s-shm aside too",
		abs, ErrCorrupt, filepath.Base(abs), filepath.Base(abs), filepath.Base(abs))
}

// empty reports whether a store file and its WAL hold no byte: no store
// was made in them, by this process or another.
func empty(abs string) bool {
	for _, p := range []string{abs, abs + "-wal"} {
		if fi, err := os.Stat(p); err == nil && fi.Size() > 0 {
			return false
		}
	}
	return true
}

// removeNew removes a store file this process created and could not make
// a store of, with its WAL files, and its folder when that was new too
// and holds nothing else.
func removeNew(abs string, dirNew bool) {
	for _, p := range []string{abs, abs + "-wal", abs + "-shm", abs + "-journal"} {
		os.Remove(p)
	}
	if dirNew {
		os.Remove(filepath.Dir(abs)) // only if empty
	}
}

// openForReading opens an existing store read-write when it can (so an older
// schema is migrated and the WAL is shared with writers) and read-only when
// the file system or the disk will not let it.
func openForReading(ctx context.Context, abs string, opt Options) (*Store, error) {
	fi, err := os.Stat(abs)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s", ErrNoStore, abs)
	}
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", abs, err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("open store %s: %w: it is a directory", abs, ErrCorrupt)
	}
	if fi.Size() == 0 {
		// A store begun and never made (an older freshctx on a full disk
		// left one): nothing is in it to read.
		return nil, fmt.Errorf("%w at %s (an empty file)", ErrNoStore, abs)
	}
	if f, err := os.OpenFile(abs, os.O_RDWR, 0); err == nil {
		f.Close()
		s, err := openRetrying(ctx, abs, opt)
		if err == nil || !cannotWrite(err) {
			return s, err
		}
	}
	return openReadOnly(ctx, abs, opt)
}

// openReadOnly opens the store with SQLite's read-only mode. That mode
// needs the WAL's index (-shm) beside a store in WAL mode, and cannot make
// one on a read-only mount. There, a store whose WAL is there without its
// index (a process left the store, Leave, and the index was not copied
// with it, or was removed) is opened unlocked, and SQLite builds the index
// from the WAL in the process's own memory, so that every commit the WAL
// holds is read, not only what was checkpointed before them. Otherwise
// (a closed store, with no WAL, whose file holds every commit; or one the
// read-only mode could not open for another reason, as before) it is
// opened as immutable. Neither takes a lock: no process writes through a
// mount that cannot be written, and one writing the store through another
// keeps the index beside it, where the unlocked mode is not chosen.
func openReadOnly(ctx context.Context, abs string, opt Options) (*Store, error) {
	s, err := openOnce(ctx, abs, opt, "ro")
	if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNewerSchema) {
		mode := "immutable"
		if exists(abs+"-wal") && !exists(abs+"-shm") {
			mode = "unlocked"
		}
		s, err = openOnce(ctx, abs, opt, mode)
	}
	if err != nil {
		return nil, err
	}
	s.readOnly = true
	return s, nil
}

// exists reports whether something is at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// openRetrying opens read-write. Switching a new database to WAL and
// migrating it can meet SQLITE_BUSY without SQLite's busy handler being
// consulted (two processes creating the store at once), so opening retries
// until the busy timeout.
func openRetrying(ctx context.Context, abs string, opt Options) (*Store, error) {
	deadline := time.Now().Add(opt.BusyTimeout)
	for attempt := 1; ; attempt++ {
		s, err := openOnce(ctx, abs, opt, "rw")
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

func openOnce(ctx context.Context, abs string, opt Options, mode string) (*Store, error) {
	db, err := sql.Open("sqlite", dsn(abs, opt.BusyTimeout, mode))
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", abs, err)
	}
	s := &Store{db: db, path: abs, now: opt.Now, readOnly: mode != "rw", busyTimeout: opt.BusyTimeout}
	if err := s.init(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", abs, s.classify(err))
	}
	return s, nil
}

// dsn is the connection string. The journal mode is not part of it: a
// database is switched to WAL only once it is known to be freshctx's.
func dsn(path string, busy time.Duration, mode string) string {
	q := url.Values{}
	if mode == "unlocked" {
		// Before anything reads the file: in exclusive locking mode SQLite
		// keeps the WAL's index in the connection's memory instead of
		// mapping -shm; unix-none takes no file locks.
		q.Add("_pragma", "locking_mode(EXCLUSIVE)")
		q.Set("vfs", "unix-none")
	}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	switch mode {
	case "rw":
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", checkpointPages))
		q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", walLimit))
		q.Set("_txlock", "immediate")
	case "ro", "unlocked":
		q.Set("mode", "ro")
	case "immutable":
		q.Set("mode", "ro")
		q.Set("immutable", "1")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// prepareFiles creates the directory and an empty database file with tight
// permissions before SQLite sees them; SQLite gives its WAL and shared-memory
// files the database file's permissions.
func prepareFiles(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create store directory %s: %w", dir, classifyOS(err))
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open store %s: %w", path, classifyOS(err))
	}
	return f.Close()
}

// init checks that the file is a freshctx store (or empty) before anything
// is written to it, then switches it to WAL, migrates it and finds its blob
// area.
func (s *Store) init(ctx context.Context) error {
	names, err := migrationNames()
	if err != nil {
		return err
	}
	latest := len(names)
	appID, version, err := s.header(ctx)
	if err != nil {
		return err
	}
	if err := checkHeader(appID, version, latest); err != nil {
		return err
	}
	var fk int
	if err := s.db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
		return err
	}
	if fk != 1 {
		return errors.New("foreign keys are not enabled")
	}
	if s.readOnly {
		if version < latest {
			return fmt.Errorf("%w: schema version %d needs an upgrade to %d, which a read-only store cannot take",
				ErrReadOnly, version, latest)
		}
		return s.findBlobArea(ctx, false)
	}
	var mode string
	if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		return fmt.Errorf("journal mode is %q, want wal", mode)
	}
	if version < latest {
		ms, err := loadMigrations()
		if err != nil {
			return err
		}
		if err := s.migrate(ctx, ms); err != nil {
			return err
		}
	}
	return s.findBlobArea(ctx, version == 0)
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// BlobDir is the folder of the store's blob area.
func (s *Store) BlobDir() string { return s.blobs }

// ReadOnly reports whether the store was opened for reading only.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Now is the store's clock.
func (s *Store) Now() time.Time { return s.now() }

// Close closes the database. The last connection to the store closed
// anywhere makes SQLite checkpoint the WAL into the database file and
// delete it; see Leave for a process about to exit.
func (s *Store) Close() error { return s.db.Close() }

// Leave is what a process about to exit calls instead of Close: it leaves
// the store open, for the exit to end. A close of the last connection
// checkpoints the WAL into the database file, syncing both, and deletes
// the WAL and its index, so the next process to write makes a new WAL,
// syncing its header and its folder: four fsyncs for every command that
// writes, a hook's or a read's one small row among them
// (BenchmarkLeaveOrClose). Left, the WAL stays beside the database and the
// next process's SQLite reads it back (its recovery, which runs after any
// process that ends without closing, crashed or killed: WAL mode is made
// for it). SQLite then checkpoints when a commit finds the WAL past
// checkpointPages, not at every exit, and journal_size_limit trims a WAL
// one large transaction grew once it is reused.
//
// A commit is as safe as before against the process ending, killed or
// not; against a power loss it is what synchronous=NORMAL makes it, kept
// once the system has written the WAL to the disk or a checkpoint synced
// it, else lost with the commits after it, never half kept. (The close's
// checkpoint synced it before the process ended.) A store on a mount made
// read-only later is read with the WAL left beside it, as long as the
// WAL's index (-shm) is there too; without it SQLite can read only what
// was checkpointed (openReadOnly).
func (s *Store) Leave() {}

// checkpointPages is the size in pages (4 KiB) at which a commit
// checkpoints the WAL (SQLite's wal_autocheckpoint). Every process that
// opens a store nobody else has open reads the whole WAL back, so a
// smaller WAL makes every open cheaper and checkpoints more often: at
// SQLite's 1,000 a hook's open read up to 4 MB back, about 4 ms; at 256
// it reads at most 1 MB, and a hook's few pages a call make a checkpoint
// every few dozen calls.
const checkpointPages = 256

// walLimit is the size in bytes a WAL is cut back to when it is reused
// after a checkpoint (SQLite's journal_size_limit): a WAL one large
// transaction grew does not stay that large beside the store.
const walLimit = 4 << 20

// DB exposes the database for read-only queries of feature packages.
func (s *Store) DB() *sql.DB { return s.db }
