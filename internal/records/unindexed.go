package records

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/freshctx/freshctx/internal/store"
)

// A record's save does not write the full-text index: FTS5 flushes a new
// segment for every transaction that adds to it, and a process that saves
// one record readies FTS5 for it too; leaving the index out of the save
// took about a tenth of the CPU of a `freshctx run -- true`. The record's
// row for the index waits in records_unindexed instead, and the first
// recall that searches text moves every waiting row into the index in one
// transaction; it searches in a read that finds none waiting, so every
// record its snapshot holds is in the index it searches. A store that
// cannot be written is searched through a copy of the index in the
// connection's temporary database, the waiting rows added to it.

// errMustIndex stops a read transaction that found records waiting for the
// index in a store that can be written: a write transaction indexes them,
// and the read is tried again.
var errMustIndex = errors.New("records wait for the full-text index")

// maxWaiting bounds the records waiting for the index, and so the work of
// the recall that indexes them: the save that would make a wider span of
// ids wait indexes them all, one segment for that many records.
const maxWaiting = 256

// leaveUnindexed makes the saved record wait for the index with its facts
// column, or indexes every waiting record where they span maxWaiting ids.
func leaveUnindexed(ctx context.Context, tx *store.Tx, id int64, facts string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO records_unindexed (record_id, facts) VALUES (?, ?)`, id, facts)
	if err != nil {
		return fmt.Errorf("index record: %w", err)
	}
	var oldest int64
	if err := tx.QueryRowContext(ctx, `SELECT min(record_id) FROM records_unindexed`).Scan(&oldest); err != nil {
		return fmt.Errorf("index record: %w", err)
	}
	if id-oldest+1 < maxWaiting {
		return nil
	}
	return indexWaiting(ctx, tx)
}

// hasUnindexed reports whether any record waits for the index.
func hasUnindexed(ctx context.Context, tx *store.Tx) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM records_unindexed)`).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("records waiting for the index: %w", err)
	}
	return n == 1, nil
}

// indexWaiting moves every waiting record into the full-text index.
func indexWaiting(ctx context.Context, tx *store.Tx) error {
	if err := copyWaiting(ctx, tx, "main"); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM records_unindexed`); err != nil {
		return fmt.Errorf("index records: %w", err)
	}
	return nil
}

// copyWaiting adds the waiting records to the index of schema.
func copyWaiting(ctx context.Context, tx *store.Tx, schema string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO `+schema+`.records_fts (rowid, command, label, digest, facts)
		SELECT r.id, r.command, r.label, r.digest, u.facts
		FROM main.records_unindexed u JOIN main.records r ON r.id = u.record_id
		ORDER BY r.id`)
	if err != nil {
		return fmt.Errorf("index records: %w", err)
	}
	return nil
}

// searchWith runs search in a read transaction whose records_fts holds
// every record. Where records wait, a write transaction indexes them and
// the read is tried again (a run may have saved another meanwhile); the
// last try searches in the write transaction itself, so the writers' lock
// is held for a search only under a stream of saves. A store that cannot
// be written (opened read-only, its disk full, or its writers' lock held
// past the busy timeout) is searched through a temporary copy of its index.
func (s *Service) searchWith(ctx context.Context, search func(*store.Tx) error) error {
	readOnly := s.Store.ReadOnly()
	read := func(tx *store.Tx) error {
		waiting, err := hasUnindexed(ctx, tx)
		switch {
		case err != nil:
			return err
		case !waiting:
			return search(tx)
		case readOnly:
			return withTempIndex(ctx, tx, search)
		}
		return errMustIndex
	}
	for range 2 {
		err := s.Store.View(ctx, read)
		if !errors.Is(err, errMustIndex) {
			return err
		}
		err = s.Store.Update(ctx, func(tx *store.Tx) error { return indexWaiting(ctx, tx) })
		if unwritable(err) {
			return s.Store.View(ctx, func(tx *store.Tx) error { return withTempIndex(ctx, tx, search) })
		}
		if err != nil {
			return err
		}
	}
	return s.Store.Update(ctx, func(tx *store.Tx) error {
		if err := indexWaiting(ctx, tx); err != nil {
			return err
		}
		return search(tx)
	})
}

// withTempIndex runs search with a temporary records_fts, made as the
// store's own is, holding its rows and the waiting ones: an unqualified
// name finds the temporary database's table first. The table is dropped
// before the transaction ends, so the pooled connection keeps nothing; if
// the drop fails, the error rolls its making back.
func withTempIndex(ctx context.Context, tx *store.Tx, search func(*store.Tx) error) (err error) {
	var ddl string
	err = tx.QueryRowContext(ctx, `SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = 'records_fts'`).Scan(&ddl)
	if err != nil {
		return fmt.Errorf("read the index's definition: %w", err)
	}
	const made = "CREATE VIRTUAL TABLE records_fts"
	if !strings.HasPrefix(ddl, made) {
		return fmt.Errorf("the index's definition is not %q…", made)
	}
	if _, err := tx.ExecContext(ctx, "CREATE VIRTUAL TABLE temp.records_fts"+strings.TrimPrefix(ddl, made)); err != nil {
		return fmt.Errorf("copy the index: %w", err)
	}
	defer func() {
		if _, derr := tx.ExecContext(ctx, `DROP TABLE temp.records_fts`); derr != nil && err == nil {
			err = fmt.Errorf("drop the index's copy: %w", derr)
		}
	}()
	_, err = tx.ExecContext(ctx, `INSERT INTO temp.records_fts (rowid, command, label, digest, facts)
		SELECT rowid, command, label, digest, facts FROM main.records_fts`)
	if err != nil {
		return fmt.Errorf("copy the index: %w", err)
	}
	if err := copyWaiting(ctx, tx, "temp"); err != nil {
		return err
	}
	return search(tx)
}

// unwritable reports a write refused for a reason a read need not share.
func unwritable(err error) bool {
	return store.Unwritable(err) || errors.Is(err, store.ErrLocked)
}
