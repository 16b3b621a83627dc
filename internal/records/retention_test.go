package records

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRunSweepsWhatKilledCapturesLeft: the hourly maintenance after a run
// removes unfinished blobs of writers that died, with retention or without.
func TestRunSweepsWhatKilledCapturesLeft(t *testing.T) {
	for _, retention := range []bool{true, false} {
		s, _ := newService(t)
		if retention {
			s.Retention = 24 * 3600e9
		}
		if err := os.MkdirAll(s.Store.BlobDir(), 0o700); err != nil {
			t.Fatal(err)
		}
		left := filepath.Join(s.Store.BlobDir(), "tmp-2147483646-killed")
		if err := os.WriteFile(left, []byte("half an output"), 0o600); err != nil {
			t.Fatal(err)
		}
		rec := run(t, s, "echo hi")
		if rec.ID == 0 {
			t.Fatalf("not kept: %s", rec.NotKept)
		}
		if _, err := os.Stat(left); !os.IsNotExist(err) {
			t.Fatalf("retention %v: the killed capture's file is still there (%v)", retention, err)
		}
	}
}
