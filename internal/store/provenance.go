package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
)

// Cleaning the blob area deletes only files freshctx can prove it made,
// whatever their names say: a user's file called trash-x or tmp-1-y, or a
// link of that name, is left alone, and so is every file of a blob area
// that is itself a link out of the store.

// zstdMagic starts every zstd frame: a blob file, or a temporary one its
// writer got to write.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// isBlobFile reports whether path is a regular file (not a link) whose
// zstd content hashes to hexDigest: a blob of freshctx's, whatever its
// name in the area (a shard's file, or one set aside as trash).
func isBlobFile(path, hexDigest string) bool {
	f, ok := openRegular(path)
	if !ok {
		return false
	}
	defer f.Close()
	dec, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		return false
	}
	defer dec.Close()
	h := sha256.New()
	if _, err := io.Copy(h, dec); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == hexDigest
}

// isUnfinishedBlob reports whether path is a regular file (not a link)
// that starts as a blob does: a zstd frame a writer began.
func isUnfinishedBlob(path string) bool {
	f, ok := openRegular(path)
	if !ok {
		return false
	}
	defer f.Close()
	head := make([]byte, len(zstdMagic))
	_, err := io.ReadFull(f, head)
	return err == nil && bytes.Equal(head, zstdMagic)
}

// openRegular opens path for reading if it is a regular file and not a
// link, as it is when opened.
func openRegular(path string) (*os.File, bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	if now, err := f.Stat(); err != nil || !os.SameFile(fi, now) {
		f.Close()
		return nil, false
	}
	return f, true
}

// linkedArea reports whether the blob area is a link (out of the store):
// its files are not cleaned, it is reported.
func (s *Store) linkedArea() (string, bool) {
	fi, err := os.Lstat(s.blobs)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return "", false
	}
	target, _ := os.Readlink(s.blobs)
	return target, true
}
