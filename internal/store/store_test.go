package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func mustOpenStore(tb testing.TB) *Store {
	tb.Helper()
	s, err := Open(context.Background(), filepath.Join(tb.TempDir(), ".freshctx", "freshctx.db"), Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func TestOpenCreatesWithTightPermissions(t *testing.T) {
	s := mustOpenStore(t)
	fi, err := os.Stat(filepath.Dir(s.Path()))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode = %v, want 0700", fi.Mode().Perm())
	}
	fi, err = os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("db mode = %v, want 0600", fi.Mode().Perm())
	}
	if wal, err := os.Stat(s.Path() + "-wal"); err == nil && wal.Mode().Perm() != 0o600 {
		t.Errorf("wal mode = %v, want 0600", wal.Mode().Perm())
	}
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	if err := s.Update(ctx, func(tx *Tx) error { return tx.SetMeta("k", "v") }); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := Open(ctx, s.Path(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	var got string
	err = s2.View(ctx, func(tx *Tx) error {
		v, _, err := tx.Meta("k")
		got = v
		return err
	})
	if err != nil || got != "v" {
		t.Fatalf("meta after reopen = %q, %v", got, err)
	}
}

func TestOpenRefusesCorruptFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "freshctx.db")
	junk := bytes.Repeat([]byte("this is not a database "), 500)
	if err := os.WriteFile(p, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), p, Options{})
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Open(junk) = %v, want ErrCorrupt", err)
	}
	after, _ := os.ReadFile(p)
	if !bytes.Equal(after, junk) {
		t.Fatal("Open modified a corrupt file")
	}
}

func TestOpenRefusesForeignDatabase(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	s.Close()
	p := filepath.Join(t.TempDir(), "other.db")
	other, err := Open(ctx, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.db.Exec("PRAGMA application_id = 1234"); err != nil {
		t.Fatal(err)
	}
	other.Close()
	if _, err := Open(ctx, p, Options{}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Open(foreign) = %v, want ErrCorrupt", err)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	if _, err := s.db.Exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion()+1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := Open(ctx, s.Path(), Options{})
	if !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("Open(newer) = %v, want ErrNewerSchema", err)
	}
}

func TestLockedStoreGivesClearError(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	hold := make(chan struct{})
	held := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- s.Update(ctx, func(tx *Tx) error {
			close(held)
			<-hold
			return nil
		})
	}()
	<-held
	s2, err := Open(ctx, s.Path(), Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	err = s2.Update(ctx, func(tx *Tx) error { return tx.SetMeta("k", "v") })
	close(hold)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("Update while locked = %v, want ErrLocked", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestFailedUpdateLeavesStoreAsItWas(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx *Tx) error {
		if err := tx.SetMeta("k", "v"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	s.View(ctx, func(tx *Tx) error {
		if _, ok, _ := tx.Meta("k"); ok {
			t.Error("a failed update was kept")
		}
		return nil
	})
}

func writeBlob(t *testing.T, s *Store, data []byte) Blob {
	t.Helper()
	w, err := s.CreateBlob()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	var b Blob
	err = s.Update(context.Background(), func(tx *Tx) error {
		var err error
		b, err = tx.CommitBlob(w)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readBlob(t *testing.T, s *Store, b Blob) []byte {
	t.Helper()
	r, err := s.OpenBlob(b.Digest)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestBlobRoundTripAnyBytes(t *testing.T) {
	s := mustOpenStore(t)
	data := make([]byte, 3<<20)
	rand.Read(data)
	data = append(data, []byte("\x00\xff\xfe invalid utf-8 \xc3\x28")...)
	b := writeBlob(t, s, data)
	if b.Size != int64(len(data)) {
		t.Fatalf("size = %d", b.Size)
	}
	if got := readBlob(t, s, b); !bytes.Equal(got, data) {
		t.Fatal("blob content differs")
	}
	// The same content again is stored once.
	b2 := writeBlob(t, s, data)
	if b2 != b {
		t.Fatal("same content, different blob")
	}
	left, _ := filepath.Glob(filepath.Join(s.blobs, "tmp-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// TestBlobFinishedBeforeCommit: a blob finished out of the transaction
// (records finish theirs while stamping) commits as one finished in it; a
// Finish that failed says so again, and CommitBlob keeps nothing of it.
func TestBlobFinishedBeforeCommit(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	w, err := s.CreateBlob()
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("finished early"))
	want, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	var got Blob
	err = s.Update(ctx, func(tx *Tx) error {
		got, err = tx.CommitBlob(w)
		return err
	})
	if err != nil || got != want {
		t.Fatalf("CommitBlob after Finish = %v, %v; Finish said %v", got, err, want)
	}
	if data := readBlob(t, s, got); string(data) != "finished early" {
		t.Fatalf("blob holds %q", data)
	}

	bad, err := s.CreateBlob()
	if err != nil {
		t.Fatal(err)
	}
	bad.Write([]byte("lost"))
	bad.f.Close() // the sync cannot be made
	if _, err := bad.Finish(); err == nil {
		t.Fatal("Finish of a blob whose file is closed succeeded")
	}
	err = s.Update(ctx, func(tx *Tx) error {
		_, err := tx.CommitBlob(bad)
		return err
	})
	if err == nil {
		t.Fatal("CommitBlob took a blob whose Finish failed")
	}
	bad.Discard()
	left, _ := filepath.Glob(filepath.Join(s.blobs, "tmp-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

func TestOrphanBlobsDeletedOnlyOnCommit(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	b := writeBlob(t, s, []byte("orphan"))
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx *Tx) error {
		n, _, err := tx.DeleteOrphanBlobs()
		if err != nil || n != 1 {
			t.Fatalf("DeleteOrphanBlobs = %d, %v", n, err)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if got := readBlob(t, s, b); string(got) != "orphan" {
		t.Fatal("rolled-back delete lost the blob")
	}
	err = s.Update(ctx, func(tx *Tx) error {
		_, freed, err := tx.DeleteOrphanBlobs()
		if freed <= 0 {
			t.Errorf("freed = %d stored bytes, want > 0", freed)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenBlob(b.Digest); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("OpenBlob after delete = %v, want ErrCorrupt (missing)", err)
	}
	left, _ := filepath.Glob(filepath.Join(s.blobs, "trash-*"))
	if len(left) != 0 {
		t.Fatalf("trash left: %v", left)
	}
}

func TestConcurrentWritersBothLand(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	other, err := Open(ctx, s.Path(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i, st := range []*Store{s, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				errs <- st.Update(ctx, func(tx *Tx) error {
					return tx.SetMeta(fmt.Sprintf("k%d-%d", i, j), "v")
				})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var n int
	s.db.QueryRow("SELECT count(*) FROM meta WHERE key LIKE 'k%'").Scan(&n)
	if n != 40 {
		t.Fatalf("rows = %d, want 40", n)
	}
}

func TestConcurrentCreateBothOpen(t *testing.T) {
	for range 20 {
		p := filepath.Join(t.TempDir(), "new.db")
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := Open(context.Background(), p, Options{})
				if err == nil {
					err = s.Update(context.Background(), func(tx *Tx) error { return tx.SetMeta("k", "v") })
					s.Close()
				}
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("concurrent create: %v", err)
			}
		}
	}
}

// upgraded makes a store file with only the first n migrations applied, as
// an older freshctx left it, runs stmts on it, and opens it with this one.
func upgraded(t *testing.T, n int, stmts ...string) *Store {
	t.Helper()
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "old.db")
	if err := prepareFiles(p); err != nil {
		t.Fatal(err)
	}
	old, err := sql.Open("sqlite", dsn(p, time.Second, "rw"))
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := loadMigrations()
	s := &Store{db: old}
	for _, m := range ms[:n] {
		if err := s.apply(ctx, m, len(ms)); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range stmts {
		if _, err := old.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()
	st, err := Open(ctx, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestMigrationKeepsOldRecords(t *testing.T) {
	st := upgraded(t, 1, `INSERT INTO records (kind, command, argv, root, cwd, intent, compressor, started_at,
		duration_ms, stdout_bytes, stderr_bytes, raw_tokens, raw_tokens_exact, digest, digest_tokens, stamped_at)
		VALUES ('run', 'go test', '[]', '/r', '.', 'summary', 'generic', 1, 1, 0, 0, 0, 1, 'FAIL TestOld', 2, 1)`,
		`INSERT INTO record_files (record_id, path, existed, is_dir, size, mtime_ns, sha256, git_clean)
			VALUES (1, 'pkg/sub/old_test.go', 1, 0, 1, 1, '', 1)`)
	var base string
	var hits int
	st.db.QueryRow("SELECT base FROM record_files").Scan(&base)
	st.db.QueryRow("SELECT count(*) FROM records_fts WHERE records_fts MATCH 'TestOld'").Scan(&hits)
	if base != "old_test.go" || hits != 1 {
		t.Fatalf("after migration: base %q, fts hits %d", base, hits)
	}
}

// TestMigrationCountsOldArtifacts: every key stored before artifact packs
// existed gets a gen, and a change to it after the upgrade bumps that gen.
func TestMigrationCountsOldArtifacts(t *testing.T) {
	st := upgraded(t, 8, `INSERT INTO artifacts (repo, ref, type, key, slice, root, commit_sha, tree, tree_clean, created_at,
		stamped_at, content_size) VALUES ('r', 'main', 'repo_map', 'root', 'a', '/r', 'c', 't', 1, 1, 1, 0),
		('r', 'main', 'repo_map', 'root', 'b', '/r', 'c', 't', 1, 1, 1, 0)`,
		`INSERT INTO artifact_deps (artifact_id, path, existed, is_dir, size, mtime_ns, sha256, git_clean)
			VALUES (1, 'a.go', 1, 0, 1, 1, '', 0)`)
	gen := func() int64 {
		var g int64
		if err := st.db.QueryRow(`SELECT gen FROM artifact_gens WHERE repo = 'r' AND type = 'repo_map' AND key = 'root'`).Scan(&g); err != nil {
			t.Fatal(err)
		}
		return g
	}
	before := gen()
	if _, err := st.db.Exec(`UPDATE artifact_deps SET size = 2 WHERE artifact_id = 1`); err != nil {
		t.Fatal(err)
	}
	if before != 1 || gen() == before {
		t.Fatalf("gen %d after the upgrade and %d after a change, want 1 and more", before, gen())
	}
}

// TestMigrationCountsRegistryRows: every root's rows are counted when the
// count is added (a root whose gen row is missing gets one), and every
// insert and delete after it moves the count, an upsert that updates
// does not, nor does a watched path.
func TestMigrationCountsRegistryRows(t *testing.T) {
	row := func(root, path string) string {
		return fmt.Sprintf(`INSERT INTO registry_files (root, path, digest, size, lang) VALUES ('%s', '%s', 'd', 1, 'go')`, root, path)
	}
	st := upgraded(t, 21, row("/a", "1.go"), row("/a", "2.go"), row("/a", "3.go"), row("/b", "1.go"), row("/b", "2.go"),
		`DELETE FROM registry_gen WHERE root = '/b'`)
	want := map[string]int{"/a": 3, "/b": 2}
	check := func(when string) {
		t.Helper()
		for root, n := range want {
			var files, rows int
			if err := st.db.QueryRow(`SELECT files FROM registry_gen WHERE root = ?`, root).Scan(&files); err != nil {
				t.Fatalf("%s: %s: %v", when, root, err)
			}
			st.db.QueryRow(`SELECT count(*) FROM registry_files WHERE root = ?`, root).Scan(&rows)
			if files != n || rows != n {
				t.Fatalf("%s: %s counts %d files, holds %d rows; want %d", when, root, files, rows, n)
			}
		}
	}
	check("after the upgrade")
	for _, q := range []string{
		row("/a", "4.go"),
		`DELETE FROM registry_files WHERE root = '/b' AND path = '1.go'`,
		row("/c", "1.go"),
		`INSERT INTO registry_files (root, path, digest, size, lang) VALUES ('/a', '1.go', 'e', 2, 'go')
			ON CONFLICT(root, path) DO UPDATE SET digest = excluded.digest`,
		`UPDATE registry_files SET size = 3 WHERE root = '/a'`,
		`INSERT INTO registry_gone (root, path, fp, fp_at) VALUES ('/a', 'gone.go', '', 1)`,
	} {
		if _, err := st.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	want = map[string]int{"/a": 4, "/b": 1, "/c": 1}
	check("after writes")
}
