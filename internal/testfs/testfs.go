// Package testfs mounts what tests of the file system's limits need: a
// small tmpfs, made read-only when asked. A process that may not mount
// skips the test.
package testfs

import (
	"os/exec"
	"testing"
)

// Tmpfs mounts a tmpfs of size (mount's notation: "8m") at a new folder;
// it is unmounted when the test ends.
func Tmpfs(tb testing.TB, size string) string {
	tb.Helper()
	dir := tb.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		tb.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	tb.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// ReadOnly remounts a Tmpfs read-only.
func ReadOnly(tb testing.TB, dir string) {
	tb.Helper()
	if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
		tb.Skipf("cannot remount read-only: %v %s", err, out)
	}
}
