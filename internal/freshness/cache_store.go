package freshness

import (
	"context"
	"fmt"
	"strings"

	"github.com/freshctx/freshctx/internal/sha"
	"github.com/freshctx/freshctx/internal/store"
)

// StoreCache keeps the stat cache in the store's stat_cache table.
type StoreCache struct {
	S *store.Store
}

// chunk bounds the number of parameters of one IN (...) query.
const chunk = 500

// Load implements StatCache with one query per 500 paths.
func (c StoreCache) Load(ctx context.Context, root string, paths []string) (map[string]CacheEntry, error) {
	out := make(map[string]CacheEntry, len(paths))
	err := c.S.View(ctx, func(tx *store.Tx) error {
		for i := 0; i < len(paths); i += chunk {
			part := paths[i:min(i+chunk, len(paths))]
			if err := loadChunk(ctx, tx, root, part, out); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load stat cache: %w", err)
	}
	return out, nil
}

func loadChunk(ctx context.Context, tx *store.Tx, root string, paths []string, out map[string]CacheEntry) error {
	args := make([]any, 0, len(paths)+1)
	args = append(args, root)
	for _, p := range paths {
		args = append(args, p)
	}
	q := `SELECT path, fp, sha256, recorded_ns
		FROM stat_cache WHERE root = ? AND path IN (?` + strings.Repeat(",?", len(paths)-1) + `)`
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var p, fp, h string
		var e CacheEntry
		if err := rows.Scan(&p, &fp, &h, &e.Recorded); err != nil {
			return err
		}
		d, derr := sha.Parse(h)
		f, ferr := ParseFingerprint(fp)
		if derr != nil || ferr != nil || f.IsZero() {
			continue // a corrupt or old entry is a miss
		}
		e.FP, e.Digest = f, d
		out[p] = e
	}
	return rows.Err()
}

// Save implements StatCache, saveChunk entries to a transaction: each
// entry stands on its own (its fingerprint says when it holds), so a save
// cut short leaves a smaller cache, never a wrong one, and the store's write
// lock is never held for the whole of a large tree's first walk.
//
// A store that cannot be written (opened for reading only, on a read-only
// mount or a full disk) keeps no entries and Save says nothing of it: an
// entry only spares the next reader a hash, and the answer it was taken
// for stands without it. A show or a recall there answers as anywhere
// else rather than fail on the cache.
func (c StoreCache) Save(ctx context.Context, root string, entries map[string]CacheEntry) error {
	if c.S.ReadOnly() {
		return nil
	}
	paths := make([]string, 0, len(entries))
	for p := range entries {
		paths = append(paths, p)
	}
	var err error
	for i := 0; i < len(paths) && err == nil; i += saveChunk {
		err = c.save(ctx, root, entries, paths[i:min(i+saveChunk, len(paths))])
	}
	if store.Unwritable(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("save stat cache: %w", err)
	}
	return nil
}

// saveChunk bounds the entries one transaction of Save writes.
const saveChunk = 1000

func (c StoreCache) save(ctx context.Context, root string, entries map[string]CacheEntry, paths []string) error {
	return c.S.Update(ctx, func(tx *store.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO stat_cache
			(root, path, size, mtime_ns, ctime_ns, inode, mode, sha256, recorded_ns, fp)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(root, path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns,
			ctime_ns = excluded.ctime_ns, inode = excluded.inode, mode = excluded.mode,
			sha256 = excluded.sha256, recorded_ns = excluded.recorded_ns, fp = excluded.fp`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, p := range paths {
			e := entries[p]
			fi := e.FP.File
			_, err := stmt.ExecContext(ctx, root, p, fi.Size, fi.ModTime, fi.Ctime,
				int64(fi.Inode), uint32(fi.Mode), e.Digest.String(), e.Recorded, e.FP.String())
			if err != nil {
				return err
			}
		}
		return nil
	})
}
