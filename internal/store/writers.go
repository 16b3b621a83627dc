package store

import (
	"context"
	"os"
	"time"
)

// The store's writers take turns through a kernel lock on a file beside
// the database (WritersPath), taken before SQLite's write lock and let go
// once the transaction has ended. A writer waiting for another then sleeps
// in the kernel and is woken as the lock is let go, where SQLite's own busy
// handler polls with sleeps that grow to 100 ms: with 8 runs at a time on 2
// cores, the slowest saves spent most of their time in that polling
// (BenchmarkConcurrentRuns gives the p99 of a whole run).
//
// SQLite's locking is still what keeps the data whole: this lock only
// orders writers. A writer that cannot open the file, or that does not get
// the lock within the busy timeout, goes on to SQLite's own wait, as every
// writer did before.

// WritersPath is the lock file the store's writers take turns through.
func WritersPath(dbPath string) string { return dbPath + "-writers" }

// lockWriters waits for the writers' lock and returns how to let it go.
func (s *Store) lockWriters(ctx context.Context) (unlock func()) {
	if !advisoryLocks {
		return func() {}
	}
	f, err := os.OpenFile(WritersPath(s.path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return func() {}
	}
	if tryLockFile(f) {
		return func() { f.Close() }
	}
	got := make(chan bool, 1)
	go func() { got <- waitLockFile(f) }()
	timer := time.NewTimer(s.busyTimeout)
	defer timer.Stop()
	select {
	case ok := <-got:
		if !ok {
			f.Close()
			return func() {}
		}
		return func() { f.Close() }
	case <-timer.C:
	case <-ctx.Done():
	}
	// Given up: the lock, if it still comes, is let go at once.
	go func() {
		<-got
		f.Close()
	}()
	return func() {}
}
