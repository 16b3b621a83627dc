package store

import (
	"sync"

	"github.com/klauspost/compress/zstd"
)

// A packed value is many rows kept as one compressed column value (the
// registry's scan index, an artifact's slices), read in one go where the
// rows would be read one by one. These are its codec.

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
