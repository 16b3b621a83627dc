package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testbench"
)

// ExecContext answers as sql.Tx's does whether a statement runs once or
// again from its prepared form: rows written, ids and counts returned,
// errors, scripts of several statements, and transactions rolled back.
func TestExecReusesStatements(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	mustUpdate := func(fn func(tx *Tx) error) {
		t.Helper()
		if err := s.Update(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	count := func() (n int) {
		t.Helper()
		if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM exec_test`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	mustUpdate(func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE exec_test (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)`)
		return err
	})
	const insert = `INSERT INTO exec_test (v) VALUES (?)`
	mustUpdate(func(tx *Tx) error {
		for i := range 50 {
			res, err := tx.ExecContext(ctx, insert, fmt.Sprint("row ", i))
			if err != nil {
				return err
			}
			id, err := res.LastInsertId()
			if err != nil || id != int64(i+1) {
				return fmt.Errorf("run %d: id %d (%v), want %d", i, id, err, i+1)
			}
			if n, err := res.RowsAffected(); err != nil || n != 1 {
				return fmt.Errorf("run %d: %d rows (%v)", i, n, err)
			}
		}
		// A run that fails, on its first and later runs, leaves the
		// statement to serve the next.
		for range 3 {
			if _, err := tx.ExecContext(ctx, insert, "row 7"); err == nil || !strings.Contains(err.Error(), "UNIQUE") {
				return fmt.Errorf("a duplicate: %v, want a UNIQUE constraint's error", err)
			}
		}
		_, err := tx.ExecContext(ctx, insert, "row 50")
		return err
	})
	if n := count(); n != 51 {
		t.Fatalf("%d rows after the first transaction, want 51", n)
	}
	// A script of two statements runs whole every time.
	const script = `INSERT INTO exec_test (v) VALUES ('a' || ?1); INSERT INTO exec_test (v) VALUES ('b' || ?1)`
	mustUpdate(func(tx *Tx) error {
		for i := range 3 {
			if _, err := tx.Exec(script, i); err != nil {
				return err
			}
		}
		return nil
	})
	if n := count(); n != 57 {
		t.Fatalf("%d rows after the scripts, want 57", n)
	}
	// What a transaction rolled back wrote is gone, its statements with it;
	// the next transaction prepares its own.
	stop := errors.New("stop")
	err := s.Update(ctx, func(tx *Tx) error {
		for i := range 5 {
			if _, err := tx.ExecContext(ctx, insert, fmt.Sprint("dropped ", i)); err != nil {
				return err
			}
		}
		return stop
	})
	if !errors.Is(err, stop) {
		t.Fatalf("rolled back: %v", err)
	}
	if n := count(); n != 57 {
		t.Fatalf("%d rows after a rollback, want 57", n)
	}
	mustUpdate(func(tx *Tx) error {
		for i := range 3 {
			if _, err := tx.ExecContext(ctx, `UPDATE exec_test SET v = v || '!' WHERE id = ?`, i+1); err != nil {
				return err
			}
		}
		return nil
	})
	var v string
	if err := s.DB().QueryRowContext(ctx, `SELECT v FROM exec_test WHERE id = 3`).Scan(&v); err != nil || v != "row 2!" {
		t.Fatalf("row 3 = %q (%v), want %q", v, err, "row 2!")
	}
}

// BenchmarkExecRows writes 2,000 rows in one transaction by one statement
// run for each (store.Tx's ExecContext, which prepares it on its second
// run) and, in turn, from its text every time (sql.Tx's, what every run
// did before): ms a transaction each, and x_text, the ratio.
func BenchmarkExecRows(b *testing.B) {
	ctx := context.Background()
	s := mustOpenStore(b)
	if err := s.Update(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE exec_bench (root TEXT, path TEXT, digest TEXT, size INTEGER, PRIMARY KEY (root, path))`)
		return err
	}); err != nil {
		b.Fatal(err)
	}
	const rows = 2000
	const write = `INSERT INTO exec_bench (root, path, digest, size) VALUES (?, ?, ?, ?)
		ON CONFLICT (root, path) DO UPDATE SET digest = excluded.digest, size = excluded.size`
	timed := func(exec func(tx *Tx, i int) error) time.Duration {
		start := time.Now()
		if err := s.Update(ctx, func(tx *Tx) error {
			for i := range rows {
				if err := exec(tx, i); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var reused, text []time.Duration
	for b.Loop() {
		reused = append(reused, timed(func(tx *Tx, i int) error {
			_, err := tx.ExecContext(ctx, write, "/repo", fmt.Sprintf("pkg/file%04d.go", i), "d1", i)
			return err
		}))
		text = append(text, timed(func(tx *Tx, i int) error {
			_, err := tx.Tx.ExecContext(ctx, write, "/repo", fmt.Sprintf("pkg/file%04d.go", i), "d2", i)
			return err
		}))
	}
	testbench.MedianMS(b, reused, "reused_ms")
	testbench.MedianMS(b, text, "text_ms")
	testbench.Ratio(b, text, reused, "x_text")
}
