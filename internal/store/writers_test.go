//go:build unix

package store

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// TestWritersTakeTurnsThroughTheLock: the writers' lock is held for as
// long as a write transaction runs, and let go as it ends.
func TestWritersTakeTurnsThroughTheLock(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	lock := WritersPath(s.Path())
	var during bool
	err := s.Update(ctx, func(tx *Tx) error {
		during = lockedByWriter(lock)
		return tx.SetMeta("k", "v")
	})
	if err != nil {
		t.Fatal(err)
	}
	if !during {
		t.Fatal("the writers' lock was not held during the write")
	}
	if lockedByWriter(lock) {
		t.Fatal("the writers' lock is still held after the write")
	}
	if err := s.View(ctx, func(tx *Tx) error {
		if lockedByWriter(lock) {
			t.Error("a reader took the writers' lock")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(lock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("lock file: %v %v, want 0600", fi, err)
	}
}

// TestWriterGoesOnWithoutTheLock: a holder of the writers' lock that never
// lets go (not a freshctx writer, or a stuck one) holds a writer up for the
// busy timeout at most, then SQLite's own locking decides; the lock, when
// it comes later, is let go at once. A lock file that cannot be opened
// stops no write.
func TestWriterGoesOnWithoutTheLock(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	s.busyTimeout = 100 * time.Millisecond
	holder, err := os.OpenFile(WritersPath(s.Path()), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if !tryLockFile(holder) {
		t.Fatal("could not take the lock for the test")
	}
	start := time.Now()
	if err := s.Update(ctx, func(tx *Tx) error { return tx.SetMeta("k", "v") }); err != nil {
		t.Fatalf("write while the lock was held elsewhere: %v", err)
	}
	if waited := time.Since(start); waited < 100*time.Millisecond || waited > 5*time.Second {
		t.Fatalf("waited %v, want about the busy timeout", waited)
	}
	holder.Close()
	for deadline := time.Now().Add(5 * time.Second); lockedByWriter(WritersPath(s.Path())); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the abandoned wait kept the lock it got")
		}
	}

	os.Remove(WritersPath(s.Path()))
	if err := os.Mkdir(WritersPath(s.Path()), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.SetMeta("k", "w") }); err != nil {
		t.Fatalf("write with a lock file that cannot be opened: %v", err)
	}
}

// TestWritesAfterATransactionDoNotWaitForIt: the work a transaction leaves
// for after its end (removing blob files, which takes the write lock
// itself) runs once the writers' lock is let go, not a busy timeout later.
func TestWritesAfterATransactionDoNotWaitForIt(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	s.busyTimeout = 5 * time.Second
	for _, commit := range []bool{true, false} {
		var after error
		start := time.Now()
		s.Update(ctx, func(tx *Tx) error {
			f := func() { after = s.Update(ctx, func(tx *Tx) error { return tx.SetMeta("after", "v") }) }
			if commit {
				tx.afterCommit = append(tx.afterCommit, f)
				return nil
			}
			tx.afterRollback = append(tx.afterRollback, f)
			return errors.New("rolled back")
		})
		if took := time.Since(start); after != nil || took > 2*time.Second {
			t.Fatalf("commit %v: the write after took %v (%v)", commit, took, after)
		}
	}
}
