package records

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/teststore"
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
		if err := os.WriteFile(left, halfABlob, 0o600); err != nil {
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

// TestPruneRunsOncePerPeriod: the maintenance runs after the first record
// and then not again until pruneEvery has passed on the store's clock,
// whatever the number of records made in between.
func TestPruneRunsOncePerPeriod(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("init")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	st := teststore.Open(t, "", store.Options{Now: func() time.Time { return now }})
	s := &Service{WS: teststore.Workspace(t, r.Dir), Store: st, Cwd: r.Dir}
	if err := os.MkdirAll(st.BlobDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	leave := func() string {
		p := filepath.Join(st.BlobDir(), "tmp-2147483646-killed")
		if err := os.WriteFile(p, halfABlob, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	swept := func(p string) bool {
		_, err := os.Stat(p)
		return os.IsNotExist(err)
	}
	for i, step := range []struct {
		after time.Duration
		swept bool
	}{{0, true}, {time.Minute, false}, {pruneEvery - 2*time.Minute, false}, {2 * time.Minute, true}, {time.Second, false}} {
		now = now.Add(step.after)
		p := leave()
		if rec := run(t, s, "echo hi"); rec.ID == 0 {
			t.Fatalf("run %d not kept: %s", i, rec.NotKept)
		}
		if got := swept(p); got != step.swept {
			t.Fatalf("run %d, %v after the one before: swept %v, want %v", i, step.after, got, step.swept)
		}
		if !step.swept {
			os.Remove(p)
		}
	}
}

// halfABlob is what a killed writer leaves: the start of a zstd frame (the
// sweep removes only files that begin as freshctx's blobs do).
var halfABlob = []byte{0x28, 0xb5, 0x2f, 0xfd, 'h', 'a', 'l', 'f'}
