// Package testfs mounts what tests of the file system's limits need: a
// small tmpfs, made read-only or filled when asked. A process that may not mount
// skips the test.
package testfs

import (
	"os"
	"os/exec"
	"path/filepath"
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

// Fill writes a file into a Tmpfs until it has no room left.
func Fill(tb testing.TB, dir string) {
	tb.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	for chunk := make([]byte, 64<<10); ; {
		if _, err := f.Write(chunk); err != nil {
			return
		}
	}
}
