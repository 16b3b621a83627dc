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
