package registry

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
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
	feed := newScanFeed()
	results := checkRows(snap, feed)
	fed, err := s.feedScan(ctx, feed)
	close(feed.chunks)
	moved, streamed := results()
	if err != nil {
		return nil, 0, fmt.Errorf("scan the registry: %w", err)
	}
	if !fed.badStream {
		moved = append(moved, streamed...)
	}
	if fed.save && fed.gen > 0 && !s.reading() {
		if err := s.saveScan(ctx, fed.gen, fed.all); err != nil {
			return nil, 0, err
		}
	}
	return moved, fed.rows, ctx.Err()
}

// checkRows starts the workers that lstat the rows fed to them, and
// returns the wait for what they found: the rows that moved, apart from
// those that came from the index stream.
func checkRows(snap *freshness.Snapshot, feed scanFeed) func() (moved, streamed []string) {
	window := snap.Window()
	var mu sync.Mutex
	var moved, streamed []string
	var wg sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0)*2, 2) {
		wg.Go(func() {
			var mine, mineStreamed []string
			buf := make([]byte, 0, 128)
			var rels []string
			var fps []freshness.Fingerprint
			var errs []error
			for chunk := range feed.chunks {
				rels, fps, errs = rels[:0], fps[:0], errs[:0]
				for _, r := range chunk.rows {
					rels = append(rels, r.path)
				}
				fps, errs = append(fps, make([]freshness.Fingerprint, len(rels))...), append(errs, make([]error, len(rels))...)
				snap.FingerprintMany(rels, fps, errs)
				for i, r := range chunk.rows {
					switch {
					case !rowMoved(r, fps[i], errs[i], window, &buf):
					case chunk.buf != nil:
						mineStreamed = append(mineStreamed, strings.Clone(r.path)) // the buffer is reused
					default:
						mine = append(mine, r.path)
					}
				}
				if chunk.buf != nil {
					clear(rels) // no string of the buffer outlives its chunk
					feed.giveBack(chunk.buf)
				}
			}
			mu.Lock()
			moved, streamed = append(moved, mine...), append(streamed, mineStreamed...)
			mu.Unlock()
		})
	}
	return func() ([]string, []string) {
		wg.Wait()
		return moved, streamed
	}
}

// scanFed is what feedScan sent the workers: the gen it read at, how many
// rows (watched paths aside), whether a stream of the index turned out
// bad (what came of it is not to be believed: the rows were sent again),
// and the rows to save as the index when it is to be saved.
type scanFed struct {
	gen       int64
	rows      int
	badStream bool
	save      bool
	all       []stored
}

// feedScan sends the workers every row's and watched path's stored
// fingerprint: from the scan index (scanindex.go) made current, streamed
// when it is current or a few paths behind; else from the rows as they are
// read (the store's reading and the system calls overlap), the index built
// again for next time. All of it in one transaction, so the index, the
// delta and the rows are of one moment.
func (s *Service) feedScan(ctx context.Context, feed scanFeed) (fed scanFed, err error) {
	root := s.WS.Root
	err = s.Store.View(ctx, func(tx *store.Tx) error {
		p, err := planScan(ctx, tx, root)
		if err != nil {
			return err
		}
		fed = scanFed{gen: p.gen}
		if p.how == fromWhole && s.reading() {
			p.how = fromStream
		}
		switch p.how {
		case fromStream:
			var n int
			serr := withScanData(ctx, tx, root, func(data []byte) (err error) {
				n, err = streamScan(ctx, data, p.written, feed)
				return err
			})
			if serr == nil {
				again, err := readRowsOf(ctx, tx, root, p.written, nil)
				feed.sendAll(again)
				fed.rows = n + rowsAmong(again)
				return err
			}
			if !errors.Is(serr, errBadScan) {
				return serr
			}
			fed.badStream = true
		case fromWhole:
			all, err := readScan(ctx, tx, root)
			if err != nil {
				return err
			}
			if all != nil {
				if all, err = patchScan(ctx, tx, root, all, p.written); err != nil {
					return err
				}
				feed.sendAll(all)
				fed.rows, fed.save, fed.all = rowsAmong(all), true, all
				return nil
			}
		}
		for _, q := range []string{
			`SELECT path, fp, fp_at, 0 FROM registry_files WHERE root = ?`,
			`SELECT path, fp, fp_at, 1 FROM registry_gone WHERE root = ?`,
		} {
			if err := streamFingerprints(ctx, tx, q, root, feed.chunks, &fed.all); err != nil {
				return err
			}
		}
		fed.rows, fed.save = rowsAmong(fed.all), true
		return nil
	})
	return fed, err
}

// rowsAmong counts the rows among stored fingerprints (watched paths
// aside).
func rowsAmong(all []stored) int {
	n := 0
	for _, r := range all {
		if !r.watched {
			n++
		}
	}
	return n
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

func streamFingerprints(ctx context.Context, tx *store.Tx, q, root string, to chan<- scanChunk, all *[]stored) error {
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
			to <- scanChunk{rows: chunk}
			chunk = make([]stored, 0, 512)
		}
	}
	if len(chunk) > 0 {
		to <- scanChunk{rows: chunk}
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
