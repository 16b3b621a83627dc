package registry

import (
	"context"
	"runtime"
	"sync"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
)

// stored is a row's fingerprint as it was written.
type stored struct {
	path, fp string
	at       int64
}

// moved lists the rows whose file may have changed since their digest was
// taken: the fingerprint now differs from the one stored with the row, or
// the stored one was not settled (taken within the racy window of a write),
// or there is none. It also lists the paths examined without a row (see
// registry_gone) whose fingerprint moved: one that appeared or changed. It reads no
// file content — one lstat per row, in parallel — and is the evidence behind
// trust: git's "clean" alone never is.
func (s *Service) moved(ctx context.Context, snap *freshness.Snapshot) ([]string, error) {
	var rows, gone []stored
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		if rows, err = loadFingerprints(ctx, tx, `SELECT path, fp, fp_at FROM registry_files WHERE root = ?`, s.WS.Root); err != nil {
			return err
		}
		gone, err = loadFingerprints(ctx, tx, `SELECT path, fp, fp_at FROM registry_gone WHERE root = ?`, s.WS.Root)
		return err
	})
	if err != nil {
		return nil, err
	}
	window := snap.Window()
	all := append(rows, gone...)
	flag := make([]bool, len(all))
	parallel(len(all), func(i int) {
		r := all[i]
		now, err := snap.Fingerprint(r.path)
		switch {
		case i >= len(rows) && err != nil:
			flag[i] = r.fp != "" // a gone path: still absent is no news
		case err != nil || r.fp == "" || now.String() != r.fp:
			flag[i] = true
		default:
			flag[i] = !now.Settled(r.at, window)
		}
	})
	var out []string
	for i, f := range flag {
		if f {
			out = append(out, all[i].path)
		}
	}
	return out, ctx.Err()
}

// parallel runs f(0..n-1) on a few goroutines: lstat is a system call, and
// several in flight keep the kernel busy on every core.
func parallel(n int, f func(i int)) {
	workers := min(max(runtime.GOMAXPROCS(0)*2, 2), max(n/256, 1))
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for w := range workers {
		lo, hi := w*per, min((w+1)*per, n)
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				f(i)
			}
		}()
	}
	wg.Wait()
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
