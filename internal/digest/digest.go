// Package digest is the content identity used everywhere in freshctx: the
// SHA-256 of a byte stream, printed as lowercase hex.
package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
)

// Digest is a SHA-256 sum. The zero Digest means "not computed".
type Digest [32]byte

// String returns the hex form, or "" for the zero Digest.
func (d Digest) String() string {
	if d.IsZero() {
		return ""
	}
	return hex.EncodeToString(d[:])
}

// IsZero reports whether d was never computed.
func (d Digest) IsZero() bool { return d == Digest{} }

// Parse reads the hex form; "" parses to the zero Digest.
func Parse(s string) (Digest, error) {
	var d Digest
	if s == "" {
		return d, nil
	}
	if len(s) != 64 {
		return d, fmt.Errorf("digest %q: want 64 hex digits", s)
	}
	if _, err := hex.Decode(d[:], []byte(s)); err != nil {
		return d, fmt.Errorf("digest %q: %w", s, err)
	}
	return d, nil
}

// Bytes returns the digest of b.
func Bytes(b []byte) Digest { return sha256.Sum256(b) }

// List returns the digest of items, each followed by a NUL byte: it moves
// when an item is added, removed, changed or moved, and no two lists of
// NUL-free items share it.
func List(items []string) Digest {
	h := sha256.New()
	for _, it := range items {
		io.WriteString(h, it)
		h.Write([]byte{0})
	}
	var d Digest
	h.Sum(d[:0])
	return d
}

// Reader returns the digest of everything r yields and the byte count.
func Reader(r io.Reader) (Digest, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return Digest{}, n, err
	}
	var d Digest
	h.Sum(d[:0])
	return d, n, nil
}
