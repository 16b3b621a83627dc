package store

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/zstd"
)

// A packed value is many rows kept as one compressed column value (the
// registry's scan index, an artifact's slices), read in one go where the
// rows would be read one by one. Pack and Unpack are its compression;
// PackWriter and PackReader the fields inside: unsigned and signed varints,
// a byte for a bool, length-prefixed bytes and strings, and interned
// strings (a string written again is its first index).

var (
	packedOnce sync.Once
	packedEnc  *zstd.Encoder
	packedDec  *zstd.Decoder
)

func packedCodecs() (*zstd.Encoder, *zstd.Decoder) {
	packedOnce.Do(func() {
		packedEnc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
		packedDec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	})
	return packedEnc, packedDec
}

// Pack compresses a value to keep in a column.
func Pack(b []byte) []byte {
	enc, _ := packedCodecs()
	return enc.EncodeAll(b, nil)
}

// Unpack reverses Pack.
func Unpack(b []byte) ([]byte, error) {
	_, dec := packedCodecs()
	return dec.DecodeAll(b, nil)
}

// PackWriter appends fields to a packed value.
type PackWriter struct {
	B    []byte
	seen map[string]uint64 // interned strings, by their order
}

// Uint appends an unsigned varint.
func (w *PackWriter) Uint(v uint64) { w.B = binary.AppendUvarint(w.B, v) }

// Int appends a signed varint.
func (w *PackWriter) Int(v int64) { w.B = binary.AppendVarint(w.B, v) }

// Bool appends one byte, 1 or 0.
func (w *PackWriter) Bool(v bool) {
	if v {
		w.B = append(w.B, 1)
	} else {
		w.B = append(w.B, 0)
	}
}

// UintSize, IntSize and StringSize are the bytes Uint, Int and String
// append, for a writer that makes its buffer at its size first; Bool
// appends one.
func UintSize(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

// IntSize is the bytes Int appends: the unsigned varint of v's zigzag
// encoding.
func IntSize(v int64) int { return UintSize(uint64(v)<<1 ^ uint64(v>>63)) }

// StringSize is the bytes String appends.
func StringSize(s string) int { return UintSize(uint64(len(s))) + len(s) }

// Raw appends bytes as they are (their length known to the reader).
func (w *PackWriter) Raw(v []byte) { w.B = append(w.B, v...) }

// Bytes appends a length and the bytes.
func (w *PackWriter) Bytes(v []byte) {
	w.Uint(uint64(len(v)))
	w.B = append(w.B, v...)
}

// String appends a length and the string.
func (w *PackWriter) String(s string) {
	w.Uint(uint64(len(s)))
	w.B = append(w.B, s...)
}

// Interned appends 0 and the string the first time it is written, else
// 1 + the index of its first writing.
func (w *PackWriter) Interned(s string) {
	if i, ok := w.seen[s]; ok {
		w.Uint(i + 1)
		return
	}
	if w.seen == nil {
		w.seen = map[string]uint64{}
	}
	w.seen[s] = uint64(len(w.seen))
	w.Uint(0)
	w.String(s)
}

// ErrBadPack is a packed value that cannot be read.
var ErrBadPack = errors.New("malformed packed value")

// PackReader reads the fields of a packed value. The first malformed one
// sets Err, and every read after it returns zero values.
type PackReader struct {
	b      []byte
	strs   []string
	shared string // b whole, as a string, when strings share its memory
	Err    error
}

// NewPackReader reads b.
func NewPackReader(b []byte) *PackReader { return &PackReader{b: b} }

// NewSharedPackReader reads b, which must never change afterwards: the
// strings it reads are b's own bytes, not copies, so 100,000 paths read
// cost no allocation each (and keep b's memory alive while one of them
// is).
func NewSharedPackReader(b []byte) *PackReader {
	return &PackReader{b: b, shared: unsafe.String(unsafe.SliceData(b), len(b))}
}

// Left is how many bytes are still to read.
func (r *PackReader) Left() int { return len(r.b) }

func (r *PackReader) fail() { r.Err, r.b = ErrBadPack, nil }

// Uint reads an unsigned varint.
func (r *PackReader) Uint() uint64 {
	v, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return v
}

// Int reads a signed varint.
func (r *PackReader) Int() int64 {
	v, k := binary.Varint(r.b)
	if k <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return v
}

// Count reads a length, bounded by what is left to read.
func (r *PackReader) Count() int {
	n := r.Uint()
	if n > uint64(len(r.b)) {
		r.fail()
		return 0
	}
	return int(n)
}

// Bool reads one byte: 1 is true.
func (r *PackReader) Bool() bool {
	if len(r.b) == 0 {
		r.fail()
		return false
	}
	v := r.b[0] == 1
	r.b = r.b[1:]
	return v
}

// Raw reads n bytes.
func (r *PackReader) Raw(n int) []byte {
	if n > len(r.b) {
		r.fail()
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

// Bytes reads a length and the bytes.
func (r *PackReader) Bytes() []byte { return r.Raw(r.Count()) }

// String reads a length and the string.
func (r *PackReader) String() string {
	v := r.Bytes()
	if r.shared == "" || len(v) == 0 {
		return string(v)
	}
	at := len(r.shared) - len(r.b) - len(v) // where v starts in the value
	return r.shared[at : at+len(v)]
}

// Interned reads what Interned wrote.
func (r *PackReader) Interned() string {
	i := r.Uint()
	if i == 0 {
		s := r.String()
		r.strs = append(r.strs, s)
		return s
	}
	if i > uint64(len(r.strs)) {
		r.fail()
		return ""
	}
	return r.strs[i-1]
}
