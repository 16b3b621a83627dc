package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// Tx is one logical write (Update) or read (View). Its clock is fixed when it
// begins so every row it writes carries the same time.
type Tx struct {
	*sql.Tx
	s   *Store
	Now time.Time

	afterCommit, afterRollback []func()

	mu    sync.Mutex
	execs map[string]*execStmt // statements ExecContext ran, by their text
}

// execStmt is a statement ExecContext has run in this transaction: how
// many times, and once it ran again, its prepared form.
type execStmt struct {
	runs     int
	prepared *sql.Stmt
}

// ExecContext is sql.Tx's, with a statement run a second time in the
// transaction prepared once and reused from then on: SQLite parses the
// text of every statement executed from text, and a bulk write that runs
// one statement for each of thousands of rows (a registry's bootstrap, an
// artifact's slices) spent a seventh of its time parsing. A statement run
// once is executed from its text as before, so a script of several
// statements (which is not kept prepared) is parsed as often as it was.
// Queries are not reused: a prepared statement serves one open result at a
// time. The prepared statements close with the transaction.
func (tx *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	stmt, err := tx.execStmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if stmt == nil {
		return tx.Tx.ExecContext(ctx, query, args...)
	}
	return stmt.ExecContext(ctx, args...)
}

// Exec is ExecContext without a context of its own.
func (tx *Tx) Exec(query string, args ...any) (sql.Result, error) {
	return tx.ExecContext(context.Background(), query, args...)
}

// execStmt counts a run of query and returns its prepared statement from
// its second run on (nil before).
func (tx *Tx) execStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	if tx.execs == nil {
		tx.execs = map[string]*execStmt{}
	}
	e := tx.execs[query]
	if e == nil {
		e = &execStmt{}
		tx.execs[query] = e
	}
	e.runs++
	if e.runs < 2 {
		return nil, nil
	}
	if e.prepared == nil {
		stmt, err := tx.Tx.PrepareContext(ctx, query)
		if err != nil {
			return nil, err
		}
		e.prepared = stmt
	}
	return e.prepared, nil
}

// Update runs fn in one IMMEDIATE transaction and commits it if fn returns
// nil; otherwise nothing fn wrote is kept.
func (s *Store) Update(ctx context.Context, fn func(*Tx) error) error {
	return s.tx(ctx, false, fn)
}

// View runs fn in a read-only transaction: a consistent snapshot of the store.
func (s *Store) View(ctx context.Context, fn func(*Tx) error) error {
	return s.tx(ctx, true, fn)
}

func (s *Store) tx(ctx context.Context, readOnly bool, fn func(*Tx) error) error {
	if !readOnly && s.readOnly {
		return fmt.Errorf("%w: %s was opened for reading only", ErrReadOnly, s.path)
	}
	var opts *sql.TxOptions
	// unlock lets the writers' lock go as the transaction ends, before the
	// callbacks after it, which may write (and so take it) themselves.
	unlock := func() {}
	if readOnly {
		opts = &sql.TxOptions{ReadOnly: true}
	} else {
		unlock = sync.OnceFunc(s.lockWriters(ctx))
		defer unlock()
	}
	sqlTx, err := s.db.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin: %w", s.classify(err))
	}
	tx := &Tx{Tx: sqlTx, s: s, Now: s.now()}
	committed := false
	defer func() {
		if committed {
			return
		}
		sqlTx.Rollback()
		unlock()
		for _, f := range tx.afterRollback {
			f()
		}
	}()
	if err := fn(tx); err != nil {
		return s.classify(err)
	}
	err = sqlTx.Commit()
	unlock()
	if err != nil {
		return fmt.Errorf("commit: %w", s.classify(err))
	}
	committed = true
	for _, f := range tx.afterCommit {
		f()
	}
	return nil
}
