package store

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/freshctx/freshctx/internal/sha"
)

// Blob names stored bytes by content.
type Blob struct {
	Digest sha.Sum
	Size   int64
}

// BlobWriter streams bytes into a temporary compressed file of the blob
// area, hashing them on the way. Nothing is held in memory beyond the
// encoder's window. Finish, then Tx.CommitBlob (or Discard).
type BlobWriter struct {
	s    *Store
	f    *os.File
	enc  *zstd.Encoder
	h    hash.Hash
	n    int64
	done bool
	blob Blob
	err  error // what Finish failed with, said again by every later call
}

// blobWindow is how far back the compressor of a blob looks for repeats.
// The default (8 MiB) held 4 MB of history in the heap of every capture,
// which runs under a soft memory limit (run's collector policy): the
// collector then ran more often, and a 100 MB capture of a test log took
// 6-12% longer. Real outputs (a listing, a CSV, a JavaScript bundle)
// compress the same within 1 MiB; only a repeat from further back is lost.
const blobWindow = 1 << 20

// CreateBlob starts a new blob.
func (s *Store) CreateBlob() (*BlobWriter, error) {
	if s.readOnly {
		return nil, fmt.Errorf("create blob: %w: %s was opened for reading only", ErrReadOnly, s.path)
	}
	if err := os.MkdirAll(s.blobs, 0o700); err != nil {
		return nil, fmt.Errorf("create blob area: %w", classifyOS(err))
	}
	f, err := os.CreateTemp(s.blobs, tmpPattern())
	if err != nil {
		return nil, fmt.Errorf("create blob: %w", classifyOS(err))
	}
	// The lock tells a sweep this temporary file has a live writer; the
	// kernel drops it when the writer dies, however it dies. Failing to
	// take it only makes the file look abandoned sooner.
	tryLockFile(f)
	enc, err := newEncoder(f)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("create blob: %w", err)
	}
	return &BlobWriter{s: s, f: f, enc: enc, h: sha256.New()}, nil
}

// encoders are reused: making one allocated its tables and buffers, the
// largest cost of storing many small blobs (a summary's copy of its file).
var encoders sync.Pool

func newEncoder(w io.Writer) (*zstd.Encoder, error) {
	if enc, ok := encoders.Get().(*zstd.Encoder); ok {
		enc.Reset(w)
		return enc, nil
	}
	return zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true), zstd.WithWindowSize(blobWindow))
}

// closeEncoder ends the blob's stream and gives its encoder back.
func (w *BlobWriter) closeEncoder() error {
	err := w.enc.Close()
	w.enc.Reset(nil)
	encoders.Put(w.enc)
	w.enc = nil
	return err
}

// Write compresses p into the blob.
func (w *BlobWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, errors.New("write to finished blob")
	}
	w.h.Write(p)
	n, err := w.enc.Write(p)
	w.n += int64(n)
	if err != nil {
		return n, fmt.Errorf("write blob: %w", classifyOS(err))
	}
	return n, nil
}

// Size is the number of raw bytes written so far.
func (w *BlobWriter) Size() int64 { return w.n }

// Finish flushes and syncs the temporary file and returns the blob's name.
// It may be called before CommitBlob, out of the write transaction (the
// sync then holds no other writer back); a second call returns what the
// first did.
func (w *BlobWriter) Finish() (Blob, error) {
	if w.done {
		return w.blob, w.err
	}
	w.done = true
	w.blob, w.err = w.finish()
	return w.blob, w.err
}

func (w *BlobWriter) finish() (Blob, error) {
	if err := w.closeEncoder(); err != nil {
		w.f.Close()
		return Blob{}, fmt.Errorf("finish blob: %w", classifyOS(err))
	}
	if err := w.f.Sync(); err != nil {
		w.f.Close()
		return Blob{}, fmt.Errorf("sync blob: %w", classifyOS(err))
	}
	if err := w.f.Close(); err != nil {
		return Blob{}, fmt.Errorf("close blob: %w", classifyOS(err))
	}
	var d sha.Sum
	w.h.Sum(d[:0])
	return Blob{Digest: d, Size: w.n}, nil
}

// Discard removes the temporary file; it is safe after CommitBlob.
func (w *BlobWriter) Discard() {
	if !w.done {
		w.done = true
		w.closeEncoder()
		w.f.Close()
	}
	os.Remove(w.f.Name())
}

func (s *Store) blobPath(d sha.Sum) string {
	h := d.String()
	return filepath.Join(s.blobs, h[:2], h[2:]+".zst")
}

// CommitBlob moves a finished blob into place and records it. It runs inside
// the write transaction, so it cannot interleave with a concurrent
// DeleteOrphanBlobs removing the same content.
func (tx *Tx) CommitBlob(w *BlobWriter) (Blob, error) {
	b, err := w.Finish()
	if err != nil {
		return Blob{}, err
	}
	dst := tx.s.blobPath(b.Digest)
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return Blob{}, fmt.Errorf("commit blob: %w", err)
	}
	fi, err := os.Stat(w.f.Name())
	if err != nil {
		return Blob{}, fmt.Errorf("commit blob: %w", err)
	}
	if _, err := os.Stat(dst); err == nil {
		os.Remove(w.f.Name()) // same content is already stored
	} else if err := os.Rename(w.f.Name(), dst); err != nil {
		return Blob{}, fmt.Errorf("commit blob: %w", classifyOS(err))
	} else {
		// A file this transaction put in place goes again if it rolls back
		// and no other row holds the same content by then.
		tx.removeFilesAfter([]Blob{b}, false)
	}
	_, err = tx.Exec(`INSERT INTO blobs(digest, size, stored_size, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT(digest) DO NOTHING`, b.Digest.String(), b.Size, fi.Size(), tx.Now.UnixNano())
	if err != nil {
		return Blob{}, fmt.Errorf("record blob: %w", err)
	}
	return b, nil
}

// decoders are reused: making one allocates its window buffers, which
// dominated reading many small blobs.
var decoders = sync.Pool{New: func() any {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		return err
	}
	return dec
}}

// putDecoder gives a decoder back to decoders, let go of what it read
// (nil: nothing to give).
func putDecoder(dec *zstd.Decoder) {
	if dec != nil {
		dec.Reset(nil)
		decoders.Put(dec)
	}
}

// WriteBlob stores b as a blob inside the transaction.
func (tx *Tx) WriteBlob(b []byte) (Blob, error) {
	w, err := tx.s.CreateBlob()
	if err != nil {
		return Blob{}, err
	}
	defer w.Discard()
	if _, err := w.Write(b); err != nil {
		return Blob{}, err
	}
	return tx.CommitBlob(w)
}

// OpenBlob returns a reader of the blob's raw bytes. A blob whose file is
// missing or fails to decompress is reported as an error wrapping ErrCorrupt.
func (s *Store) OpenBlob(d sha.Sum) (io.ReadCloser, error) {
	f, err := os.Open(s.blobPath(d))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("blob %s: %w: its file is missing", d, ErrCorrupt)
		}
		return nil, fmt.Errorf("open blob %s: %w", d, err)
	}
	dec, ok := decoders.Get().(*zstd.Decoder)
	if !ok {
		f.Close()
		return nil, fmt.Errorf("blob %s: no zstd decoder", d)
	}
	if err := dec.Reset(f); err != nil {
		f.Close()
		putDecoder(dec)
		return nil, fmt.Errorf("blob %s: %w: %v", d, ErrCorrupt, err)
	}
	return &blobReader{dec: dec, f: f, d: d}, nil
}

type blobReader struct {
	dec *zstd.Decoder
	f   *os.File
	d   sha.Sum
}

func (r *blobReader) Read(p []byte) (int, error) {
	n, err := r.dec.Read(p)
	if err != nil && err != io.EOF {
		return n, fmt.Errorf("blob %s: %w: %v", r.d, ErrCorrupt, err)
	}
	return n, err
}

func (r *blobReader) Close() error {
	putDecoder(r.dec)
	r.dec = nil
	return r.f.Close()
}

// blobRefs lists every column that references a blob; a blob no column
// references is an orphan.
var blobRefs = []string{"records.stdout_blob", "records.stderr_blob", "registry_files.summary_blob", "artifacts.content_blob", "rc_versions.blob"}

// DeleteOrphanBlobs deletes every blob no row references and returns how
// many and how many stored bytes were freed. Their files are removed only
// after the transaction commits (see removeFilesAfter): a process killed
// before that leaves orphan files for doctor --fix, never a listed record
// without its output.
func (tx *Tx) DeleteOrphanBlobs() (n int, freed int64, err error) {
	q := "SELECT digest, stored_size FROM blobs b WHERE 1"
	for _, ref := range blobRefs {
		table, col, _ := strings.Cut(ref, ".")
		q += fmt.Sprintf(" AND NOT EXISTS (SELECT 1 FROM %s WHERE %s = b.digest)", table, col)
	}
	rows, err := tx.Query(q)
	if err != nil {
		return 0, 0, fmt.Errorf("find orphan blobs: %w", err)
	}
	var orphans []Blob
	for rows.Next() {
		var h string
		var size int64
		if err := rows.Scan(&h, &size); err != nil {
			rows.Close()
			return 0, 0, err
		}
		d, err := sha.Parse(h)
		if err != nil {
			rows.Close()
			return 0, 0, err
		}
		orphans = append(orphans, Blob{Digest: d, Size: size})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, 0, err
	}
	for _, b := range orphans {
		if _, err := tx.Exec("DELETE FROM blobs WHERE digest = ?", b.Digest.String()); err != nil {
			return 0, 0, fmt.Errorf("delete blob: %w", err)
		}
		freed += b.Size
	}
	tx.removeFilesAfter(orphans, true)
	return len(orphans), freed, nil
}
