package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testbench"
	"github.com/freshctx/freshctx/internal/testfs"
)

// leaveEnv names the store, the key and how to end for TestProcessWrites,
// which is this test binary run again as a process of its own that writes
// one row and ends as freshctx does.
const leaveEnv = "FRESHCTX_TEST_WRITE"

// TestProcessWrites is not a test: run by writeInProcess, it opens the
// store, sets a meta key to a value and leaves the store (or closes it)
// before it exits.
func TestProcessWrites(t *testing.T) {
	path := os.Getenv(leaveEnv)
	if path == "" {
		t.Skip("a process of writeInProcess")
	}
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	key, value := os.Getenv(leaveEnv+"_KEY"), os.Getenv(leaveEnv+"_VALUE")
	if err := s.Update(context.Background(), func(tx *Tx) error { return tx.SetMeta(key, value) }); err != nil {
		t.Fatal(err)
	}
	if os.Getenv(leaveEnv+"_CLOSE") != "" {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	} else {
		s.Leave()
	}
	os.Exit(0) // before the test framework could close anything
}

// writeInProcess sets key to value in the store at path from a process of
// its own, which leaves the store, or closes it when closing.
func writeInProcess(tb testing.TB, path, key, value string, closing bool) {
	tb.Helper()
	if err := processWrite(path, key, value, closing); err != nil {
		tb.Fatal(err)
	}
}

func processWrite(path, key, value string, closing bool) error {
	cmd := exec.Command(os.Args[0], "-test.run=^TestProcessWrites$")
	cmd.Env = append(os.Environ(), leaveEnv+"="+path, leaveEnv+"_KEY="+key, leaveEnv+"_VALUE="+value)
	if closing {
		cmd.Env = append(cmd.Env, leaveEnv+"_CLOSE=1")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("the writing process of %s: %w\n%s", key, err, out)
	}
	return nil
}

// checkpointed reads key from the database file alone, as SQLite's
// immutable mode does, without the WAL.
func checkpointed(t *testing.T, path, key string) (string, bool) {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path, time.Second, "immutable"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	err = db.QueryRow(`SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return v, true
}

func meta(t *testing.T, s *Store, key string) string {
	t.Helper()
	var v string
	var found bool
	err := s.View(context.Background(), func(tx *Tx) error {
		var err error
		v, found, err = tx.Meta(key)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !found {
		t.Fatalf("meta %q is missing", key)
	}
	return v
}

// A process that leaves the store keeps its commit in the WAL, for the
// next process to read back; a close, anywhere, checkpoints it into the
// database and removes the WAL.
func TestLeftStoreKeepsItsCommits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "freshctx.db")
	writeInProcess(t, path, "zero", "made", true) // the schema checkpointed
	writeInProcess(t, path, "first", "one", false)
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("no WAL left beside the store: %v", err)
	}
	if _, ok := checkpointed(t, path, "first"); ok {
		t.Fatal("the commit of a process that left the store was checkpointed: it paid what leaving saves")
	}
	writeInProcess(t, path, "second", "two", false) // reads the WAL back, then commits after it
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := meta(t, s, "first") + " " + meta(t, s, "second"); got != "one two" {
		t.Fatalf("after two processes left the store: %q, want %q", got, "one two")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a close left the WAL: %v", err)
	}
	if v, ok := checkpointed(t, path, "second"); !ok || v != "two" {
		t.Fatalf("after a close the database file holds second=%q (%v)", v, ok)
	}
	writeInProcess(t, path, "third", "three", true)
	if v, ok := checkpointed(t, path, "third"); !ok || v != "three" {
		t.Fatalf("a process that closed the store did not checkpoint: third=%q (%v)", v, ok)
	}
}

// A WAL left beside the store is read on a mount made read-only after:
// what the last process committed, which only the WAL holds, is there,
// not only what was checkpointed before it.
func TestLeftStoreReadsOnAReadOnlyMount(t *testing.T) {
	dir := testfs.Tmpfs(t, "8m")
	path := filepath.Join(dir, "freshctx.db")
	writeInProcess(t, path, "k", "before", true)
	writeInProcess(t, path, "k", "after", false)
	if v, _ := checkpointed(t, path, "k"); v != "before" {
		t.Fatalf("the database file holds k=%q: the last commit was not left in the WAL", v)
	}
	testfs.ReadOnly(t, dir)
	ro, err := Open(context.Background(), path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if !ro.ReadOnly() {
		t.Fatal("a store on a read-only mount opened for writing")
	}
	if got := meta(t, ro, "k"); got != "after" {
		t.Fatalf("read-only, k = %q, want the last commit's %q", got, "after")
	}
}

// A store left on a mount made read-only without its WAL's index (copied
// there with only the WAL, or its -shm removed), which SQLite's read-only
// mode cannot make there, is read with every commit the WAL holds, not
// only what was checkpointed before them; and a store closed, with no WAL
// and no index beside it, is read too.
func TestLeftStoreReadsWithoutItsIndex(t *testing.T) {
	dir := testfs.Tmpfs(t, "8m")
	left, closed := filepath.Join(dir, "left.db"), filepath.Join(dir, "closed.db")
	writeInProcess(t, left, "k", "before", true)
	writeInProcess(t, left, "k", "after", false)
	writeInProcess(t, closed, "k", "closed", true)
	for _, p := range []string{left + "-shm", closed + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(closed + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a closed store left its WAL (%v)", err)
	}
	if v, _ := checkpointed(t, left, "k"); v != "before" {
		t.Fatalf("the database file holds k=%q: the last commit was not left in the WAL", v)
	}
	testfs.ReadOnly(t, dir)
	for path, want := range map[string]string{left: "after", closed: "closed"} {
		ro, err := Open(context.Background(), path, Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if !ro.ReadOnly() {
			t.Fatalf("%s on a read-only mount opened for writing", path)
		}
		if got := meta(t, ro, "k"); got != want {
			t.Errorf("%s without its index, read-only: k = %q, want %q", filepath.Base(path), got, want)
		}
		if err := ro.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// A commit made past checkpointPages of WAL checkpoints it, so that a
// store every process leaves does not grow a WAL every open reads back
// whole.
func TestLeftWALIsCheckpointed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "freshctx.db")
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	page := make([]byte, 4000)
	for i := range checkpointPages * 2 {
		err := s.Update(context.Background(), func(tx *Tx) error {
			return tx.SetMeta("k", string(page[:i%len(page)]))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var busy, frames, backfilled int
	if err := s.db.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &backfilled); err != nil {
		t.Fatal(err)
	}
	if frames > checkpointPages+8 {
		t.Fatalf("the WAL holds %d frames after %d commits, past checkpointPages (%d)", frames, checkpointPages*2, checkpointPages)
	}
}

// BenchmarkLeaveOrClose times a process that opens a store, writes one
// row and exits (this test binary run again, TestProcessWrites), leaving
// the store as freshctx does and, in turn, closing it as freshctx did:
// what a close's checkpoint and the next process's new WAL cost a
// command that writes. Each way has a store of its own. x_close is the
// ratio.
func BenchmarkLeaveOrClose(b *testing.B) {
	dir := b.TempDir()
	left, closed := filepath.Join(dir, "left.db"), filepath.Join(dir, "closed.db")
	writeInProcess(b, left, "k", "v", false)
	writeInProcess(b, closed, "k", "v", true)
	var leaving, closing []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		writeInProcess(b, left, "k", string(rune('a'+i%26)), false)
		leaving = append(leaving, time.Since(start))
		start = time.Now()
		writeInProcess(b, closed, "k", string(rune('a'+i%26)), true)
		closing = append(closing, time.Since(start))
	}
	testbench.MedianMS(b, leaving, "leave_ms")
	testbench.MedianMS(b, closing, "close_ms")
	testbench.Ratio(b, closing, leaving, "x_close")
}

// A store moved aside without the WAL its last command left is not made
// anew over that WAL, whose pages SQLite would read over the new store's;
// moved with it, a new store is made.
func TestLogWithoutItsStoreIsRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "freshctx.db")
	writeInProcess(t, path, "k", "checkpointed", true)
	writeInProcess(t, path, "k", "left", false)
	if err := os.Rename(path, path+".aside"); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path, Options{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "freshctx.db-wal and freshctx.db-shm aside") {
		t.Fatalf("Open beside a WAL without its store = %v, want ErrCorrupt saying what to move", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a store was made over the WAL: %v", err)
	}
	for _, companion := range []string{"-wal", "-shm"} {
		if err := os.Rename(path+companion, path+".aside"+companion); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.View(context.Background(), func(tx *Tx) error {
		if v, found, _ := tx.Meta("k"); found {
			t.Errorf("the new store holds k=%q", v)
		}
		return nil
	})
	s.Close()
	aside, err := Open(context.Background(), path+".aside", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer aside.Close()
	if got := meta(t, aside, "k"); got != "left" {
		t.Fatalf("the store moved aside with its WAL holds k=%q, want %q", got, "left")
	}
}

// Processes that write at once, most leaving the store and some closing
// it, with values large enough that their WAL passes checkpointPages
// meanwhile, lose no commit and leave a whole database: each one's
// recovery, commit and checkpoint meets the others'.
func TestLeavingProcessesAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "freshctx.db")
	writeInProcess(t, path, "made", "yes", true)
	const writers, each = 6, 10
	value := strings.Repeat("v", 20<<10) // five pages a commit
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := processWrite(path, fmt.Sprintf("k%d-%d", w, i), fmt.Sprintf("%d:%s", i, value), i%4 == 3); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for w := range writers {
		for i := range each {
			if got := meta(t, s, fmt.Sprintf("k%d-%d", w, i)); got != fmt.Sprintf("%d:%s", i, value) {
				t.Fatalf("k%d-%d holds %d bytes, not what was written", w, i, len(got))
			}
		}
	}
	var check string
	if err := s.db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q, %v", check, err)
	}
}
