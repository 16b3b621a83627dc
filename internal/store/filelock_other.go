//go:build !unix

package store

import "os"

// advisoryLocks says files cannot be locked here: writers take turns
// through SQLite's own busy wait, and sweeps go by a file's age.
const advisoryLocks = false

func tryLockFile(*os.File) bool  { return false }
func waitLockFile(*os.File) bool { return false }

// lockedByWriter cannot tell without advisory locks; sweeps fall back to
// the file's age.
func lockedByWriter(string) bool { return false }

// ProcessAlive cannot tell here, so it answers alive for any pid above 0:
// a sweep then falls back to the file's age, and a session is kept and
// given every barrier — the safe side of both.
func ProcessAlive(pid int) bool { return pid > 0 }
