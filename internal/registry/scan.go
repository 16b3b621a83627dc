package registry

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
)

// stored is a row's fingerprint as it was written.
type stored struct {
	path, fp string
	at       int64
	watched  bool // a path examined without a row (registry_gone)
}

// moved lists the rows whose file may have changed since their digest was
// taken: the fingerprint now differs from the one stored with the row, or
// the stored one was not settled (taken within the racy window of a write),
// or there is none. It also lists the paths examined without a row (see
// registry_gone) whose fingerprint moved: one that appeared or changed. It reads no
// file content — one lstat per row, in parallel — and is the evidence behind
// trust: git's "clean" alone never is. rows is how many rows it scanned
// (the registry's files, the watched paths aside).
func (s *Service) moved(ctx context.Context, snap *freshness.Snapshot) (moved []string, rows int, err error) {
	window := snap.Window()
	chunks := make(chan []stored, 8)
	var mu sync.Mutex
	var out []string
	var wg sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0)*2, 2) {
		wg.Go(func() {
			var mine []string
			buf := make([]byte, 0, 128)
			var rels []string
			var fps []freshness.Fingerprint
			var errs []error
			for chunk := range chunks {
				rels, fps, errs = rels[:0], fps[:0], errs[:0]
				for _, r := range chunk {
					rels = append(rels, r.path)
				}
				fps, errs = append(fps, make([]freshness.Fingerprint, len(rels))...), append(errs, make([]error, len(rels))...)
				snap.FingerprintMany(rels, fps, errs)
				for i, r := range chunk {
					if rowMoved(r, fps[i], errs[i], window, &buf) {
						mine = append(mine, r.path)
					}
				}
			}
			mu.Lock()
			out = append(out, mine...)
			mu.Unlock()
		})
	}
	// From the scan index, made current (scanindex.go); else rows stream
	// to the workers as they are read (the store's reading and the system
	// calls overlap) and the index is built for next time.
	var all []stored
	var gen int64
	var fromIndex, resave bool
	err = s.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		if all, gen, fromIndex, resave, err = loadScan(ctx, tx, s.WS.Root); err != nil || fromIndex {
			return err
		}
		for _, q := range []string{
			`SELECT path, fp, fp_at, 0 FROM registry_files WHERE root = ?`,
			`SELECT path, fp, fp_at, 1 FROM registry_gone WHERE root = ?`,
		} {
			if err := streamFingerprints(ctx, tx, q, s.WS.Root, chunks, &all); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && fromIndex {
		for i := 0; i < len(all); i += 512 {
			chunks <- all[i:min(i+512, len(all))]
		}
	}
	close(chunks)
	wg.Wait()
	if err != nil {
		return nil, 0, fmt.Errorf("scan the registry: %w", err)
	}
	if (!fromIndex || resave) && gen > 0 {
		if err := s.saveScan(ctx, gen, all); err != nil {
			return nil, 0, err
		}
	}
	for _, r := range all {
		if !r.watched {
			rows++
		}
	}
	return out, rows, ctx.Err()
}

// rowMoved reports whether a row's (or watched path's) file may have
// changed since its fingerprint was stored.
func rowMoved(r stored, now freshness.Fingerprint, err error, window time.Duration, buf *[]byte) bool {
	if err == nil {
		*buf = now.AppendTo((*buf)[:0])
	}
	switch {
	case r.watched && err != nil:
		return r.fp != "" // a watched path still absent is no news
	case err != nil || r.fp == "" || string(*buf) != r.fp:
		return true
	default:
		return !now.Settled(r.at, window)
	}
}

func streamFingerprints(ctx context.Context, tx *store.Tx, q, root string, to chan<- []stored, all *[]stored) error {
	rows, err := tx.QueryContext(ctx, q, root)
	if err != nil {
		return err
	}
	defer rows.Close()
	chunk := make([]stored, 0, 512)
	for rows.Next() {
		var r stored
		if err := rows.Scan(&r.path, &r.fp, &r.at, &r.watched); err != nil {
			return err
		}
		*all = append(*all, r)
		if chunk = append(chunk, r); len(chunk) == cap(chunk) {
			to <- chunk
			chunk = make([]stored, 0, 512)
		}
	}
	if len(chunk) > 0 {
		to <- chunk
	}
	return rows.Err()
}

func loadFingerprints(ctx context.Context, tx *store.Tx, q, root string) ([]stored, error) {
	rows, err := tx.QueryContext(ctx, q, root)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []stored
	for rows.Next() {
		var r stored
		if err := rows.Scan(&r.path, &r.fp, &r.at); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
