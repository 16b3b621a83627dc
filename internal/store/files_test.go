package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/freshctx/freshctx/internal/sha"
	"github.com/freshctx/freshctx/internal/testfs"
	"github.com/klauspost/compress/zstd"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDeleteTouchesNoFileBeforeCommit(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	b := writeBlob(t, s, []byte("kept until commit"))
	err := s.Update(ctx, func(tx *Tx) error {
		if _, _, err := tx.DeleteOrphanBlobs(); err != nil {
			return err
		}
		// A kill here must leave the file where the rolled-back row expects it.
		if _, err := os.Stat(s.blobPath(b.Digest)); err != nil {
			t.Errorf("blob file gone inside the transaction: %v", err)
		}
		if left, _ := filepath.Glob(filepath.Join(s.blobs, "*-*")); len(left) != 0 {
			t.Errorf("files set aside inside the transaction: %v", left)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.blobPath(b.Digest)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("blob file after commit: %v, want removed", err)
	}
}

func TestRolledBackCommitRemovesItsFile(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	w, err := s.CreateBlob()
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("never recorded"))
	var b Blob
	boom := errors.New("boom")
	err = s.Update(ctx, func(tx *Tx) error {
		b, err = tx.CommitBlob(w)
		if err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.blobPath(b.Digest)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("file of a rolled-back blob: %v, want removed", err)
	}
	// Content another row holds stays when a second commit of it rolls back.
	kept := writeBlob(t, s, []byte("held"))
	err = s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.WriteBlob([]byte("held")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if got := readBlob(t, s, kept); string(got) != "held" {
		t.Fatalf("shared content lost: %q", got)
	}
}

func TestStoresInOneFolderKeepTheirBlobsApart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, err := Open(ctx, filepath.Join(dir, "a.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, filepath.Join(dir, "b.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if a.BlobDir() == b.BlobDir() {
		t.Fatalf("both stores keep blobs in %s", a.BlobDir())
	}
	writeBlob(t, a, []byte("same output"))
	inB := writeBlob(t, b, []byte("same output"))
	if err := a.Update(ctx, func(tx *Tx) error { _, _, err := tx.DeleteOrphanBlobs(); return err }); err != nil {
		t.Fatal(err)
	}
	if got := readBlob(t, b, inB); string(got) != "same output" {
		t.Fatalf("forgetting in a.db cost b.db its blob: %q", got)
	}
	// The blob folder is recorded, so it survives a rename of the file.
	a.Close()
	if err := os.Rename(filepath.Join(dir, "a.db"), filepath.Join(dir, "c.db")); err != nil {
		t.Fatal(err)
	}
	c, err := Open(ctx, filepath.Join(dir, "c.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.BlobDir() != filepath.Join(dir, "a.db-blobs") {
		t.Fatalf("renamed store's blobs = %s", c.BlobDir())
	}
}

func TestLegacyStoreKeepsSharedBlobFolder(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	if _, err := s.db.Exec("DELETE FROM meta WHERE key = ?", blobAreaKey); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := Open(ctx, s.Path(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if want := filepath.Join(filepath.Dir(s.Path()), "blobs"); s2.BlobDir() != want {
		t.Fatalf("legacy blob folder = %s, want %s", s2.BlobDir(), want)
	}
}

func TestForeignDatabaseIsLeftUntouched(t *testing.T) {
	p := filepath.Join(t.TempDir(), "app.db")
	db, err := sql.Open("sqlite", "file:"+p+"?_pragma=journal_mode(DELETE)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE users(name TEXT)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadFile(p)
	if _, err := Open(context.Background(), p, Options{}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Open(foreign) = %v, want ErrCorrupt", err)
	}
	after, _ := os.ReadFile(p)
	if !bytes.Equal(before, after) {
		t.Fatal("refusing a foreign database changed it")
	}
	if after[18] != 1 || after[19] != 1 {
		t.Fatalf("foreign database switched to WAL (header %d/%d)", after[18], after[19])
	}
	if _, err := os.Stat(p + "-wal"); err == nil {
		t.Fatal("a WAL file was created beside the foreign database")
	}
}

func TestReadOnlyOpenCreatesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "none")
	_, err := Open(context.Background(), filepath.Join(dir, "freshctx.db"), Options{ReadOnly: true})
	if !errors.Is(err, ErrNoStore) {
		t.Fatalf("Open(missing, ReadOnly) = %v, want ErrNoStore", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("read-only open created %s", dir)
	}
}

func TestCheckBlobFilesFindsAndFixesLeftovers(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	kept := writeBlob(t, s, []byte("still listed"))
	set := writeBlob(t, s, []byte("set aside by an older version"))
	// An older version renamed files to trash-* before commit and was
	// killed: the row still names the content, the file is aside.
	if err := os.Rename(s.blobPath(set.Digest), filepath.Join(s.blobs, "trash-"+set.Digest.String())); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	tmp := filepath.Join(s.blobs, "tmp-2147483646-killed")
	os.WriteFile(tmp, append(slices.Clone(zstdMagic), "half a blob"...), 0o600)
	os.Chtimes(tmp, old, old)
	// A blob no row records: freshctx's by its content.
	orphan := s.blobPath(sha.Bytes([]byte("no row")))
	os.MkdirAll(filepath.Dir(orphan), 0o700)
	os.WriteFile(orphan, zstdOf(t, []byte("no row")), 0o600)
	// Files freshctx cannot prove it made, whatever their names: left alone.
	notOurs := map[string][]byte{
		"trash-" + strings.Repeat("ab", 32):       []byte("a user's file"),
		"tmp-2147483646-mine":                     []byte("a user's file"),
		"ab/" + strings.Repeat("ab", 31) + ".zst": zstdOf(t, []byte("content of another name")),
	}
	for name, b := range notOurs {
		p := filepath.Join(s.blobs, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, b, 0o600)
		os.Chtimes(p, old.Add(-48*time.Hour), old.Add(-48*time.Hour))
	}
	os.Symlink(tmp, filepath.Join(s.blobs, "trash-"+strings.Repeat("cd", 32)))
	// A live writer's unfinished blob is never a leftover.
	live, err := s.CreateBlob()
	if err != nil {
		t.Fatal(err)
	}
	defer live.Discard()
	live.Write([]byte("still being written"))
	os.Chtimes(live.f.Name(), old, old)

	got, err := s.CheckBlobFiles(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Orphans) != 1 || len(got.Temporary) != 1 || len(got.Trash) != 1 || len(got.Missing) != 1 {
		t.Fatalf("check = %+v, want one orphan, temporary, trash and missing", got)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Fatal("a check without fix removed a file")
	}
	fixed, err := s.CheckBlobFiles(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(fixed.Restored) != 1 || len(fixed.Missing) != 0 || fixed.Removed != 2 {
		t.Fatalf("fix = %+v, want trash restored and two files removed", fixed)
	}
	if string(readBlob(t, s, set)) != "set aside by an older version" || string(readBlob(t, s, kept)) != "still listed" {
		t.Fatal("fix lost content")
	}
	if _, err := os.Stat(live.f.Name()); err != nil {
		t.Fatalf("fix removed a live writer's file: %v", err)
	}
	for name := range notOurs {
		if _, err := os.Stat(filepath.Join(s.blobs, filepath.FromSlash(name))); err != nil {
			t.Errorf("fix removed %s, which freshctx cannot prove it made: %v", name, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(s.blobs, "trash-"+strings.Repeat("cd", 32))); err != nil {
		t.Errorf("fix removed a link named like trash: %v", err)
	}
	again, err := s.CheckBlobFiles(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if again.Leftovers() != 0 || len(again.Missing) != 0 {
		t.Fatalf("after fix = %+v", again)
	}
}

func TestSweepTemporaryKeepsLiveWriters(t *testing.T) {
	s := mustOpenStore(t)
	live, err := s.CreateBlob()
	if err != nil {
		t.Fatal(err)
	}
	defer live.Discard()
	old := time.Now().Add(-time.Hour)
	os.Chtimes(live.f.Name(), old, old)
	// A writer that died a moment ago (its pid is gone, no lock) and an
	// old temporary file without a pid are abandoned.
	// What a killed writer leaves starts as a zstd frame does.
	unfinished := append(slices.Clone(zstdMagic), 'x')
	dead := filepath.Join(s.blobs, "tmp-2147483646-x")
	os.WriteFile(dead, unfinished, 0o600)
	ancient := filepath.Join(s.blobs, "tmp-old")
	os.WriteFile(ancient, unfinished, 0o600)
	longAgo := time.Now().Add(-48 * time.Hour)
	os.Chtimes(ancient, longAgo, longAgo)
	// A file of a live process that holds no lock yet, and a recent file
	// without a pid, are not.
	young := filepath.Join(s.blobs, fmt.Sprintf("tmp-%d-y", os.Getpid()))
	os.WriteFile(young, unfinished, 0o600)
	recent := filepath.Join(s.blobs, "tmp-recent")
	os.WriteFile(recent, unfinished, 0o600)
	os.Chtimes(recent, old, old)
	// A user's file named like a temporary one is not freshctx's.
	users := filepath.Join(s.blobs, "tmp-2147483646-notes")
	os.WriteFile(users, []byte("my notes"), 0o600)
	os.Chtimes(users, longAgo, longAgo)
	if n, _ := s.SweepTemporary(); n != 2 {
		t.Fatalf("swept %d, want 2", n)
	}
	for _, p := range []string{live.f.Name(), young, recent, users} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(p), err)
		}
	}
}

func TestReadOnlyMountStillReads(t *testing.T) {
	ctx := context.Background()
	dir := testfs.Tmpfs(t, "8m")
	p := filepath.Join(dir, "freshctx.db")
	s, err := Open(ctx, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := writeBlob(t, s, []byte("raw output"))
	s.Update(ctx, func(tx *Tx) error { return tx.SetMeta("k", "v") })
	s.Close()
	testfs.ReadOnly(t, dir)
	if _, err := Open(ctx, p, Options{}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Open(read-only mount) for writing = %v, want ErrReadOnly", err)
	}
	ro, err := Open(ctx, p, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("Open(read-only mount, ReadOnly) = %v", err)
	}
	defer ro.Close()
	if got := readBlob(t, ro, b); string(got) != "raw output" {
		t.Fatalf("blob = %q", got)
	}
	var v string
	ro.View(ctx, func(tx *Tx) error { v, _, _ = tx.Meta("k"); return nil })
	if v != "v" {
		t.Fatalf("meta = %q", v)
	}
	if err := ro.Update(ctx, func(tx *Tx) error { return nil }); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Update on read-only = %v, want ErrReadOnly", err)
	}
}

func TestFullDiskSaysDiskFull(t *testing.T) {
	ctx := context.Background()
	dir := testfs.Tmpfs(t, "2m")
	p := filepath.Join(dir, "freshctx.db")
	s, err := Open(ctx, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Update(ctx, func(tx *Tx) error { return tx.SetMeta("k", "v") })
	filler, _ := os.Create(filepath.Join(dir, "filler"))
	chunk := bytes.Repeat([]byte{'x'}, 64<<10)
	for {
		if _, err := filler.Write(chunk); err != nil {
			break
		}
	}
	filler.Close()
	err = s.Update(ctx, func(tx *Tx) error {
		return tx.SetMeta("big", strings.Repeat("y", 1<<20))
	})
	if !errors.Is(err, ErrFull) {
		t.Fatalf("Update on a full disk = %v, want ErrFull", err)
	}
	if !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("error %q does not say disk full", err)
	}
	// The temporary file may still fit; the bytes written into it cannot.
	if w, err := s.CreateBlob(); err == nil {
		_, werr := w.Write(chunk)
		_, ferr := w.Finish()
		w.Discard()
		if !errors.Is(errors.Join(werr, ferr), ErrFull) {
			t.Fatalf("blob on a full disk = %v %v, want ErrFull", werr, ferr)
		}
	} else if !errors.Is(err, ErrFull) {
		t.Fatalf("CreateBlob on a full disk = %v, want ErrFull", err)
	}
	ro, err := Open(ctx, p, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("reading a store on a full disk = %v", err)
	}
	defer ro.Close()
	var v string
	if err := ro.View(ctx, func(tx *Tx) error { v, _, err = tx.Meta("k"); return err }); err != nil || v != "v" {
		t.Fatalf("meta on a full disk = %q, %v", v, err)
	}
}

// TestSchemaAndBlobFolderCommitTogether: the transaction that creates a
// store records its blob folder, so a process that opens the store right
// after (before the creator's open returns) finds the folder, not the
// older stores' blobs/.
func TestSchemaAndBlobFolderCommitTogether(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "freshctx.db")
	db, err := sql.Open("sqlite", dsn(path, time.Second, "rw"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := &Store{db: db, path: path}
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.apply(ctx, ms[0], len(ms)); err != nil {
		t.Fatal(err)
	}
	var name string
	if err := db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", blobAreaKey).Scan(&name); err != nil || name != "freshctx.db-blobs" {
		t.Fatalf("after the first migration the blob folder is %q (%v), want freshctx.db-blobs", name, err)
	}
}

// zstdOf compresses b as a blob file holds it.
func zstdOf(t *testing.T, b []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	return enc.EncodeAll(b, nil)
}

// TestLinkedBlobAreaIsNotCleaned: with the blob folder a link to a user's
// folder, a fix deleted files in it. A linked area is reported, and
// neither the fix nor the sweep of a run touches it.
func TestLinkedBlobAreaIsNotCleaned(t *testing.T) {
	s := mustOpenStore(t)
	users := t.TempDir()
	d := sha.Bytes([]byte("x")).String()
	orphan := filepath.Join(users, d[:2], d[2:]+".zst")
	os.MkdirAll(filepath.Dir(orphan), 0o700)
	os.WriteFile(orphan, zstdOf(t, []byte("x")), 0o600)
	tmp := filepath.Join(users, "tmp-2147483646-z")
	os.WriteFile(tmp, append(slices.Clone(zstdMagic), 'z'), 0o600)
	os.RemoveAll(s.blobs)
	if err := os.Symlink(users, s.blobs); err != nil {
		t.Fatal(err)
	}
	got, err := s.CheckBlobFiles(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if got.Linked != users || got.Removed != 0 {
		t.Fatalf("fix of a linked area = %+v", got)
	}
	if n, _ := s.SweepTemporary(); n != 0 {
		t.Fatalf("the sweep removed %d files of a linked area", n)
	}
	for _, p := range []string{orphan, tmp} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}

// TestNewStoreOnAFullDiskLeavesNothing: a first run on a full disk left an
// empty freshctx.db, and from then on list, recall and stats failed with
// "schema version 0 needs an upgrade" until space was freed. Opening a new
// store on a full disk now says disk full and leaves nothing behind; an
// empty file an older version left reads as no store.
func TestNewStoreOnAFullDiskLeavesNothing(t *testing.T) {
	ctx := context.Background()
	dir := testfs.Tmpfs(t, "1m")
	filler, _ := os.Create(filepath.Join(dir, "filler"))
	chunk := bytes.Repeat([]byte{'x'}, 64<<10)
	for {
		if _, err := filler.Write(chunk); err != nil {
			break
		}
	}
	filler.Close()
	p := filepath.Join(dir, ".freshctx", "freshctx.db")
	if _, err := Open(ctx, p, Options{}); !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Open on a full disk = %v, want disk full", err)
	}
	if _, err := os.Stat(filepath.Dir(p)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the store's folder was left: %v", err)
	}
	os.Remove(filepath.Join(dir, "filler"))
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, nil, 0o600) // what an older version left
	if _, err := Open(ctx, p, Options{ReadOnly: true}); !errors.Is(err, ErrNoStore) {
		t.Fatalf("reading an empty store file = %v, want ErrNoStore", err)
	}
}
