package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Errors wrapped by Open and by the methods of Store.
var (
	ErrCorrupt     = errors.New("store is corrupt or not a freshctx database")
	ErrLocked      = errors.New("store is locked by another process")
	ErrNewerSchema = errors.New("store was written by a newer freshctx")
	ErrNotFound    = errors.New("not found")
	ErrNoStore     = errors.New("no store")
	ErrReadOnly    = errors.New("store cannot be written (read-only file system or no write permission)")
	ErrFull        = errors.New("disk full")
)

// Unwritable reports whether err is a write the store could not take
// because it cannot be written (ErrReadOnly) or its disk is full
// (ErrFull): a write the caller can go without (a cache's entry, a
// lookup's bookkeeping) is then skipped, and what it read still stands.
func Unwritable(err error) bool {
	return errors.Is(err, ErrReadOnly) || errors.Is(err, ErrFull)
}

// classify wraps SQLite and file system failures in the package's sentinel
// errors, keeping the original for context. An I/O error on a disk with no
// space left is reported as ErrFull: SQLite says "disk I/O error" when it
// cannot grow its shared-memory or WAL file.
func (s *Store) classify(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrCorrupt) || errors.Is(err, ErrLocked) || errors.Is(err, ErrFull) ||
		errors.Is(err, ErrReadOnly) || errors.Is(err, ErrNewerSchema) {
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return fmt.Errorf("%w (%v); move the file aside, with its -wal and -shm files, to start a new store", ErrCorrupt, err)
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("%w (%v); try again when it finishes", ErrLocked, err)
		case sqlite3.SQLITE_FULL:
			return fmt.Errorf("%w: %s has no space left (%v)", ErrFull, s.dir(), err)
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM:
			return fmt.Errorf("%w: %s (%v)", ErrReadOnly, s.dir(), err)
		case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN:
			if s != nil && diskFull(s.dir()) {
				return fmt.Errorf("%w: %s has no space left (%v)", ErrFull, s.dir(), err)
			}
			if s != nil && !writable(s.dir()) {
				return fmt.Errorf("%w: %s (%v)", ErrReadOnly, s.dir(), err)
			}
		}
		return err
	}
	return classifyOS(err)
}

func (s *Store) dir() string {
	if s == nil {
		return "the store's folder"
	}
	return filepath.Dir(s.path)
}

// classifyOS names the file system failures a user can act on.
func classifyOS(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return fmt.Errorf("%w (%v)", ErrFull, err)
	case errors.Is(err, syscall.EROFS), errors.Is(err, os.ErrPermission):
		return fmt.Errorf("%w (%v)", ErrReadOnly, err)
	}
	return err
}

// cannotWrite reports whether err means the store is there but may not be
// written, so a read may still succeed read-only.
func cannotWrite(err error) bool {
	if Unwritable(err) {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN:
			return true
		}
	}
	return false
}

// writable reports whether a file can be created in dir.
func writable(dir string) bool {
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}
