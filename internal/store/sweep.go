package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/freshctx/freshctx/internal/sha"
)

const (
	tmpPrefix   = "tmp-"   // then the writer's pid and a dash
	trashPrefix = "trash-" // files older versions set aside before commit
	// tmpMaxAge is when an unlocked temporary file counts as abandoned even
	// if the process its name records seems alive (a reused pid, another
	// machine sharing the folder, a system without advisory locks).
	tmpMaxAge = 24 * time.Hour
)

// tmpPattern is the os.CreateTemp pattern of this process's blobs.
func tmpPattern() string { return tmpPrefix + strconv.Itoa(os.Getpid()) + "-*" }

// tmpPID is the writer's pid recorded in a temporary file's name.
func tmpPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, tmpPrefix)
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(digits)
	return pid, ok && err == nil && pid > 0
}

// removeFilesAfter arranges for the files of blobs to be removed once the
// transaction has committed (onCommit) or rolled back, if by then no row
// records their content. It never touches a file while the transaction
// runs: a process killed mid-transaction leaves every file in place.
func (tx *Tx) removeFilesAfter(blobs []Blob, onCommit bool) {
	if len(blobs) == 0 {
		return
	}
	ds := make([]sha.Sum, len(blobs))
	for i, b := range blobs {
		ds[i] = b.Digest
	}
	f := func() { tx.s.removeUnreferenced(context.Background(), ds) }
	if onCommit {
		tx.afterCommit = append(tx.afterCommit, f)
	} else {
		tx.afterRollback = append(tx.afterRollback, f)
	}
}

// removeUnreferenced deletes the files of digests that no blob row names.
// It holds the write lock meanwhile, since CommitBlob runs under it: no
// writer can be between finding a file in place and recording its row. A
// failure (the lock busy past the timeout, a kill) leaves orphan files, which
// CheckBlobFiles finds.
func (s *Store) removeUnreferenced(ctx context.Context, ds []sha.Sum) {
	s.Update(ctx, func(tx *Tx) error {
		for _, d := range ds {
			known, err := tx.hasBlob(d)
			if err != nil {
				return err
			}
			if !known {
				os.Remove(s.blobPath(d))
			}
		}
		return nil
	})
}

func (tx *Tx) hasBlob(d sha.Sum) (bool, error) {
	var one int
	err := tx.QueryRow("SELECT 1 FROM blobs WHERE digest = ?", d.String()).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up blob: %w", err)
	}
	return true, nil
}

// BlobFiles is what CheckBlobFiles found in the blob area; paths are
// relative to it.
type BlobFiles struct {
	Files     int      `json:"files"`     // blob files a row records
	Orphans   []string `json:"orphans"`   // blob files no row records
	Temporary []string `json:"temporary"` // unfinished blobs of writers that are gone
	Trash     []string `json:"trash"`     // files older versions set aside
	Unknown   []string `json:"unknown"`   // files freshctx cannot prove it wrote, left alone
	// Linked is where the blob area links to, when it is a link out of
	// the store: nothing in it is cleaned.
	Linked   string   `json:"linked,omitempty"`
	Missing  []Blob   `json:"-"`        // rows whose file is gone
	Restored []string `json:"restored"` // trash put back where a row still needs it
	Removed  int      `json:"removed"`
	Freed    int64    `json:"bytes_freed"`
}

// Leftovers is the number of files a fix removes or restores.
func (b *BlobFiles) Leftovers() int { return len(b.Orphans) + len(b.Temporary) + len(b.Trash) }

// CheckBlobFiles compares the blob area with the blob rows. With fix it
// removes orphan files, abandoned temporary files and trash, first putting
// back trash whose content a row still needs. It holds the write lock
// unless the store is read-only, so no commit is mistaken for an orphan.
func (s *Store) CheckBlobFiles(ctx context.Context, fix bool) (*BlobFiles, error) {
	out := &BlobFiles{}
	check := func(tx *Tx) error {
		rows, err := tx.allBlobs()
		if err != nil {
			return err
		}
		if err := s.scanBlobArea(rows, out); err != nil {
			return err
		}
		for h, b := range rows {
			if !b.seen {
				out.Missing = append(out.Missing, Blob{Digest: mustDigest(h), Size: b.size})
			}
		}
		if target, ok := s.linkedArea(); ok {
			out.Linked = target
			return nil
		}
		if fix {
			s.fixBlobArea(rows, out)
		}
		return nil
	}
	var err error
	switch {
	case s.readOnly && fix:
		return nil, fmt.Errorf("fix blob area: %w: %s was opened for reading only", ErrReadOnly, s.path)
	case s.readOnly:
		err = s.View(ctx, check)
	default:
		err = s.Update(ctx, check)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

type blobRow struct {
	size int64
	seen bool
}

func (tx *Tx) allBlobs() (map[string]*blobRow, error) {
	rows, err := tx.Query("SELECT digest, size FROM blobs")
	if err != nil {
		return nil, fmt.Errorf("list blobs: %w", err)
	}
	defer rows.Close()
	m := map[string]*blobRow{}
	for rows.Next() {
		var h string
		var size int64
		if err := rows.Scan(&h, &size); err != nil {
			return nil, err
		}
		m[h] = &blobRow{size: size}
	}
	return m, rows.Err()
}

func mustDigest(h string) sha.Sum {
	d, _ := sha.Parse(h)
	return d
}

// scanBlobArea sorts every file of the blob area into out.
func (s *Store) scanBlobArea(rows map[string]*blobRow, out *BlobFiles) error {
	top, err := os.ReadDir(s.blobs)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read blob area: %w", err)
	}
	for _, e := range top {
		name := e.Name()
		path := filepath.Join(s.blobs, name)
		switch {
		case strings.HasPrefix(name, tmpPrefix) && e.Type().IsRegular():
			if fi, err := e.Info(); err == nil && fi.Size() == 0 {
				continue // a writer that wrote nothing yet, or nothing: proves nothing, costs nothing
			}
			if !isUnfinishedBlob(path) {
				out.Unknown = append(out.Unknown, name)
			} else if s.abandoned(path) {
				out.Temporary = append(out.Temporary, name)
			}
		case strings.HasPrefix(name, trashPrefix) && e.Type().IsRegular():
			if h := strings.TrimPrefix(name, trashPrefix); len(h) == 64 && isHex(h) && isBlobFile(path, h) {
				out.Trash = append(out.Trash, name)
			} else {
				out.Unknown = append(out.Unknown, name)
			}
		case e.IsDir() && len(name) == 2 && isHex(name):
			if err := s.scanShard(name, rows, out); err != nil {
				return err
			}
		default:
			out.Unknown = append(out.Unknown, name)
		}
	}
	return nil
}

func (s *Store) scanShard(shard string, rows map[string]*blobRow, out *BlobFiles) error {
	entries, err := os.ReadDir(filepath.Join(s.blobs, shard))
	if err != nil {
		return fmt.Errorf("read blob area: %w", err)
	}
	for _, e := range entries {
		rel := shard + "/" + e.Name()
		h := shard + strings.TrimSuffix(e.Name(), ".zst")
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".zst") || len(h) != 64 || !isHex(h) {
			out.Unknown = append(out.Unknown, rel)
			continue
		}
		switch r, ok := rows[h]; {
		case ok:
			r.seen = true
			out.Files++
		case isBlobFile(filepath.Join(s.blobs, shard, e.Name()), h):
			out.Orphans = append(out.Orphans, rel)
		default:
			out.Unknown = append(out.Unknown, rel)
		}
	}
	return nil
}

// abandoned reports whether a temporary blob file has no live writer: no
// process holds its lock, and the process that made it is gone (or it is a
// day old). A writer holds the lock from the moment after it creates the
// file, and is alive in that moment, so a live writer's file is never taken.
func (s *Store) abandoned(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || lockedByWriter(path) {
		return false
	}
	if pid, ok := tmpPID(filepath.Base(path)); ok && !ProcessAlive(pid) {
		return true
	}
	return time.Since(fi.ModTime()) > tmpMaxAge
}

// fixBlobArea restores needed trash and removes every leftover file.
func (s *Store) fixBlobArea(rows map[string]*blobRow, out *BlobFiles) {
	for _, name := range out.Trash {
		path := filepath.Join(s.blobs, name)
		h := strings.TrimPrefix(name, trashPrefix)
		if r, ok := rows[h]; ok && !r.seen {
			dst := s.blobPath(mustDigest(h))
			if os.MkdirAll(filepath.Dir(dst), 0o700) == nil && os.Rename(path, dst) == nil {
				r.seen = true
				out.Restored = append(out.Restored, name)
				continue
			}
		}
		s.removeLeftover(path, out)
	}
	out.Missing = out.Missing[:0]
	for h, r := range rows {
		if !r.seen {
			out.Missing = append(out.Missing, Blob{Digest: mustDigest(h), Size: r.size})
		}
	}
	for _, rel := range out.Orphans {
		s.removeLeftover(filepath.Join(s.blobs, filepath.FromSlash(rel)), out)
	}
	for _, name := range out.Temporary {
		s.removeLeftover(filepath.Join(s.blobs, name), out)
	}
}

func (s *Store) removeLeftover(path string, out *BlobFiles) {
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	if os.Remove(path) == nil {
		out.Removed++
		out.Freed += fi.Size()
	}
}

// SweepTemporary removes the abandoned temporary files at the top of the
// blob area (what a killed writer leaves), without walking the blobs
// themselves, so it is cheap enough to run now and then.
func (s *Store) SweepTemporary() (n int, freed int64) {
	if s.readOnly {
		return 0, 0
	}
	if _, linked := s.linkedArea(); linked {
		return 0, 0
	}
	entries, err := os.ReadDir(s.blobs)
	if err != nil {
		return 0, 0
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), tmpPrefix) {
			continue
		}
		path := filepath.Join(s.blobs, e.Name())
		fi, err := os.Lstat(path)
		if err != nil || !isUnfinishedBlob(path) || !s.abandoned(path) {
			continue
		}
		if os.Remove(path) == nil {
			n++
			freed += fi.Size()
		}
	}
	return n, freed
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
