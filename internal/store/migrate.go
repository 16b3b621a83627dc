package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// applicationID marks a SQLite file as a freshctx store ("FCTX").
const applicationID = 0x46435458

type migration struct {
	version int
	sql     string
}

// migrationNames are the migrations' files in order, checked to be
// numbered 1, 2, … without a gap. Opening a store needs only how many
// there are; their SQL is read (loadMigrations) when one is to be applied.
func migrationNames() ([]string, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	for i, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		v, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil || v != i+1 {
			return nil, fmt.Errorf("migration %s: want version %d", name, i+1)
		}
	}
	return names, nil
}

// loadMigrations reads the SQL of every migration.
func loadMigrations() ([]migration, error) {
	names, err := migrationNames()
	if err != nil {
		return nil, err
	}
	ms := make([]migration, 0, len(names))
	for i, name := range names {
		b, err := migrationFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: i + 1, sql: string(b)})
	}
	return ms, nil
}

// SchemaVersion is the schema this binary writes.
func SchemaVersion() int {
	names, _ := migrationNames()
	return len(names)
}

// migrate applies each pending migration in its own IMMEDIATE transaction,
// re-reading the version inside it since another process may have migrated
// meanwhile.
func (s *Store) migrate(ctx context.Context, ms []migration) error {
	for _, m := range ms {
		if err := s.apply(ctx, m, len(ms)); err != nil {
			return err
		}
	}
	return nil
}

// header reads the application id and schema version in one statement, so
// a migration committed by another process cannot fall between them. A
// database without freshctx's id that holds anything belongs to another
// program and is refused before anything is written to it.
func (s *Store) header(ctx context.Context) (appID, version int, err error) {
	var objects int
	err = s.db.QueryRowContext(ctx, `SELECT (SELECT application_id FROM pragma_application_id),
		(SELECT user_version FROM pragma_user_version),
		(SELECT count(*) FROM sqlite_schema)`).Scan(&appID, &version, &objects)
	if err != nil {
		return 0, 0, s.classify(err)
	}
	if appID == 0 && objects > 0 {
		return 0, 0, fmt.Errorf("%w: a SQLite database of another program", ErrCorrupt)
	}
	return appID, version, nil
}

func checkHeader(appID, version, latest int) error {
	if appID != 0 && appID != applicationID {
		return fmt.Errorf("%w: application id %#x is not freshctx's", ErrCorrupt, appID)
	}
	if appID == 0 && version != 0 {
		return fmt.Errorf("%w: a SQLite database of another program", ErrCorrupt)
	}
	if version > latest {
		return fmt.Errorf("%w: schema version %d, this binary knows up to %d; upgrade freshctx",
			ErrNewerSchema, version, latest)
	}
	return nil
}

func (s *Store) apply(ctx context.Context, m migration, latest int) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.classify(err)
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return s.classify(err)
	}
	if version > latest {
		return fmt.Errorf("%w: schema version %d", ErrNewerSchema, version)
	}
	if version >= m.version {
		return nil // another process got here first
	}
	if version == 0 {
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
			return s.classify(err)
		}
		if n > 0 {
			return fmt.Errorf("%w: a SQLite database of another program", ErrCorrupt)
		}
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("migration %d: %w", m.version, s.classify(err))
	}
	if version == 0 {
		// The blob folder is recorded with the schema that creates the
		// store: a process opening it right after this commit must find
		// it, not fall back to the older stores' folder.
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING`,
			blobAreaKey, blobDirName(s.path)); err != nil {
			return fmt.Errorf("migration %d: record blob folder: %w", m.version, s.classify(err))
		}
	}
	stmt := fmt.Sprintf("PRAGMA user_version = %d; PRAGMA application_id = %d", m.version, applicationID)
	if _, err := tx.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("migration %d: %w", m.version, s.classify(err))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration %d: %w", m.version, s.classify(err))
	}
	return nil
}
