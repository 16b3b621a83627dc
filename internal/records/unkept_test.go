package records

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/teststore"
)

// TestRunWhenStoreLocked: another writer holds the store past the busy
// timeout. The command still runs, its status and digest come back, and
// the record says it was not kept.
func TestRunWhenStoreLocked(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.go", "package a\n")
	r.Commit("init")
	path := filepath.Join(t.TempDir(), "freshctx.db")
	st := teststore.Open(t, path, store.Options{BusyTimeout: 200 * time.Millisecond})
	s := &Service{WS: teststore.Workspace(t, r.Dir), Store: st, Cwd: r.Dir}

	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), "ROLLBACK")

	rec, err := s.Run(context.Background(), RunRequest{Argv: []string{"sh", "-c", "echo 'a.go:1: broken'; exit 2"}, Env: os.Environ()})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if *rec.ExitCode != 2 || rec.ID != 0 || rec.NotKept == "" {
		t.Fatalf("exit %d, id %d, not kept %q", *rec.ExitCode, rec.ID, rec.NotKept)
	}
	if !strings.Contains(rec.Digest, "a.go:1: broken") {
		t.Fatalf("digest lost the output: %q", rec.Digest)
	}
}

// TestRunWhenBlobsUnwritable: the blob area cannot be created (here a
// file stands where its folder should be, which fails even for root, as a
// read-only or full disk would): same answer, and no record is listed.
func TestRunWhenBlobsUnwritable(t *testing.T) {
	s, _ := newService(t)
	blobs := s.Store.BlobDir()
	if err := os.RemoveAll(blobs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blobs, []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	rec, err := s.Run(context.Background(), RunRequest{Argv: []string{"sh", "-c", "echo hello; exit 5"}, Env: os.Environ()})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if *rec.ExitCode != 5 || rec.ID != 0 || !strings.Contains(rec.NotKept, "blob") || !strings.Contains(rec.Digest, "hello") {
		t.Fatalf("exit %d, id %d, not kept %q, digest %q", *rec.ExitCode, rec.ID, rec.NotKept, rec.Digest)
	}
	list, err := s.List(context.Background(), 10)
	if err != nil || len(list) != 0 {
		t.Fatalf("list = %v, %v", list, err)
	}
}

// TestSilentStreamsNeedNoBlob: a stream's blob is made by its first
// output, so a command that prints nothing is kept even where no blob can
// be made (the blob area unwritable as above), and a stream that stays
// silent beside one that prints gets no blob.
func TestSilentStreamsNeedNoBlob(t *testing.T) {
	s, _ := newService(t)
	rec, err := s.Run(context.Background(), RunRequest{Argv: []string{"sh", "-c", "echo out"}, Env: os.Environ()})
	if err != nil || rec.ID == 0 {
		t.Fatalf("Run: %v, not kept: %q", err, rec.NotKept)
	}
	if rec.blobs[Stdout] == "" || rec.blobs[Stderr] != "" {
		t.Fatalf("blobs %q: want stdout's alone", rec.blobs)
	}
	blobs := s.Store.BlobDir()
	if err := os.RemoveAll(blobs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blobs, []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	rec, err = s.Run(context.Background(), RunRequest{Argv: []string{"true"}, Env: os.Environ()})
	if err != nil || rec.ID == 0 || rec.NotKept != "" {
		t.Fatalf("Run: %v, id %d, not kept %q: want a silent command kept without a blob", err, rec.ID, rec.NotKept)
	}
}
