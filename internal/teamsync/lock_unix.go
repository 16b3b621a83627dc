//go:build unix

package teamsync

import (
	"os"
	"syscall"
)

// lockPublisher takes the lock one publisher of a store holds at a time:
// a run that starts one while another is sending adds nothing but a
// second connection otherwise. wait says to wait for it; without, ok is
// false when it is taken.
func lockPublisher(storePath string, wait bool) (unlock func(), ok bool) {
	f, err := os.OpenFile(storePath+"-team", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return func() {}, true // no lock file: publish anyway (it is idempotent)
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return func() {}, false
	}
	return func() { f.Close() }, true
}

// publisherRunning reports whether a publisher holds the store's lock.
func publisherRunning(storePath string) bool {
	unlock, ok := lockPublisher(storePath, false)
	unlock()
	return !ok
}
