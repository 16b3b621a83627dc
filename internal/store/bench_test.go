package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testbench"
)

// BenchmarkOpenWriteClose times opening an existing store, writing one
// small row and closing it, what every hook and read paid for the store
// before a process left it instead (BenchmarkLeaveOrClose). In turn with
// it, the same write through the same driver and pragmas to a SQLite file
// of one table, in WAL mode too: the difference is what freshctx's schema
// (parsed by SQLite on every open) and its own opening checks cost; what
// both pay is SQLite's opening, its WAL's creation, the checkpoint and
// syncs at close and the unlinking of the WAL files. x_one_table is the
// ratio.
func BenchmarkOpenWriteClose(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	path := filepath.Join(dir, "freshctx.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	s.Close()
	bare := filepath.Join(dir, "bare.db")
	db, err := sql.Open("sqlite", dsn(bare, time.Second, "rw"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA journal_mode=WAL; CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)`); err != nil {
		b.Fatal(err)
	}
	db.Close()
	const write = `INSERT INTO meta(key, value) VALUES ('bench', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`
	var full, oneTable []time.Duration
	for b.Loop() {
		start := time.Now()
		s, err := Open(ctx, path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.DB().ExecContext(ctx, write, start.String()); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		full = append(full, time.Since(start))

		start = time.Now()
		db, err := sql.Open("sqlite", dsn(bare, time.Second, "rw"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, write, start.String()); err != nil {
			b.Fatal(err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
		oneTable = append(oneTable, time.Since(start))
	}
	testbench.MedianMS(b, full, "store_ms")
	testbench.MedianMS(b, oneTable, "one_table_ms")
	testbench.Ratio(b, full, oneTable, "x_one_table")
}
