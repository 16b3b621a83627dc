//go:build unix

package integrate

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestTranscriptNeverHangs: a transcript_path that is a FIFO with no
// writer, /dev/zero, or a sparse file of gigabytes is never read through:
// each counts as a moved leaf (a barrier: a re-read at worst) and the scan
// comes back at once. Such a hook once never returned.
func TestTranscriptNeverHangs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	sparse := filepath.Join(dir, "sparse.jsonl")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	f.Close()
	for _, path := range []string{fifo, "/dev/zero", sparse, dir} {
		done := make(chan bool, 1)
		go func() {
			_, moved := scanTranscript(path, 0)
			done <- moved
		}()
		select {
		case moved := <-done:
			if !moved {
				t.Errorf("%s: not taken for a moved leaf", path)
			}
		case <-time.After(time.Minute): // a hang, not a slow machine: the scan reads nothing
			t.Fatalf("%s: the scan did not come back", path)
		}
	}
}
