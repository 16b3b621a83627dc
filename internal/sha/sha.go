// Package sha is the content identity used everywhere in freshctx: the
// SHA-256 of a byte stream, printed as lowercase hex. (The contract's
// JSON and labels call it a digest in places — registry list's `digest`,
// the artifact dependency `file_digest` —; in the code a digest is the
// text run prints, and a content's hash is a Sum.)
package sha

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sync"
)

// Sum is a SHA-256 sum. The zero Sum means "not computed".
type Sum [32]byte

// String returns the hex form, or "" for the zero Sum.
func (d Sum) String() string {
	if d.IsZero() {
		return ""
	}
	return hex.EncodeToString(d[:])
}

// IsZero reports whether d was never computed.
func (d Sum) IsZero() bool { return d == Sum{} }

// Parse reads the hex form; "" parses to the zero Sum.
func Parse(s string) (Sum, error) {
	var d Sum
	if s == "" {
		return d, nil
	}
	if len(s) != 64 {
		return d, fmt.Errorf("sha256 %q: want 64 hex digits", s)
	}
	if _, err := hex.Decode(d[:], []byte(s)); err != nil {
		return d, fmt.Errorf("sha256 %q: %w", s, err)
	}
	return d, nil
}

// Bytes returns the sum of b.
func Bytes(b []byte) Sum { return sha256.Sum256(b) }

// List returns the sum of items, each followed by a NUL byte: it moves
// when an item is added, removed, changed or moved, and no two lists of
// NUL-free items share it.
func List(items []string) Sum {
	h := sha256.New()
	for _, it := range items {
		io.WriteString(h, it)
		h.Write([]byte{0})
	}
	var d Sum
	h.Sum(d[:0])
	return d
}

// Reader returns the sum of everything r yields and the byte count. It
// reads through a buffer it keeps between calls: io.Copy would hand the
// hash to an *os.File's (or io.MultiReader's) WriteTo, which makes a
// 32 KiB buffer every call, and freshctx hashes thousands of small files
// in a check.
func Reader(r io.Reader) (Sum, int64, error) {
	h := sha256.New()
	buf := buffers.Get().(*[]byte)
	n, err := io.CopyBuffer(h, readerOnly{r}, *buf)
	buffers.Put(buf)
	if err != nil {
		return Sum{}, n, err
	}
	var d Sum
	h.Sum(d[:0])
	return d, n, nil
}

// buffers holds Reader's read buffers.
var buffers = sync.Pool{New: func() any {
	b := make([]byte, 32<<10)
	return &b
}}

// readerOnly hides a reader's WriteTo from io.CopyBuffer, which would
// otherwise call it and leave the buffer unused.
type readerOnly struct{ io.Reader }
