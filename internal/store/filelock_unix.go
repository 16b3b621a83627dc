//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

// advisoryLocks says files can be locked here (flock).
const advisoryLocks = true

// tryLockFile takes an exclusive advisory lock on f if nobody holds one,
// held until the file is closed or the process dies, and reports whether
// it did.
func tryLockFile(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// waitLockFile waits for an exclusive advisory lock on f; false if it
// cannot be had (not for a holder: it waits for that one).
func waitLockFile(f *os.File) bool {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err == nil
		}
	}
}

// lockedByWriter reports whether another open file holds the lock on path.
func lockedByWriter(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	return errors.Is(err, syscall.EWOULDBLOCK)
}

// ProcessAlive reports whether a process with this pid exists (one of
// another user's counts). A pid of 0 or less names no process.
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
