package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// blobAreaKey is the meta key naming the store's blob folder, relative to
// the database's folder.
const blobAreaKey = "store.blob_dir"

// legacyBlobDir is where stores made before the blob folder was recorded
// keep their blobs.
const legacyBlobDir = "blobs"

// blobDirName is the blob folder of a new store: the database file's name
// with "-blobs", like SQLite's "-wal" and "-shm", so two stores in one folder
// never share blobs.
func blobDirName(dbPath string) string {
	return filepath.Base(dbPath) + "-blobs"
}

// findBlobArea sets s.blobs from the meta table, recording the name for a
// store this open created.
func (s *Store) findBlobArea(ctx context.Context, created bool) error {
	if created && !s.readOnly {
		_, err := s.db.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?)
			ON CONFLICT(key) DO NOTHING`, blobAreaKey, blobDirName(s.path))
		if err != nil {
			return fmt.Errorf("record blob folder: %w", err)
		}
	}
	var name string
	err := s.db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", blobAreaKey).Scan(&name)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		name = legacyBlobDir
	case err != nil:
		return fmt.Errorf("read blob folder: %w", err)
	case name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`):
		return fmt.Errorf("%w: blob folder %q is not a plain name", ErrCorrupt, name)
	}
	s.blobs = filepath.Join(filepath.Dir(s.path), name)
	return nil
}
