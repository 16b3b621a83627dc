//go:build !unix

package store

import "os"

func lockFile(*os.File) {}

// lockedByWriter cannot tell without advisory locks; sweeps fall back to
// the file's age.
func lockedByWriter(string) bool { return false }

// processAlive cannot tell here; sweeps fall back to the file's age.
func processAlive(int) bool { return true }
