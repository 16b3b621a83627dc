package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// A packed value read as a stream is compressed with a narrow window
// (StreamWindow): its reader keeps that much history, not the whole value,
// and hands its bytes on as they are decompressed. The registry's scan
// index is one: its rows go to the workers that lstat them a buffer at a
// time instead of standing in memory whole.

// StreamWindow is the window PackForStream compresses with, and the most
// history OpenPackStream's reader keeps.
const StreamWindow = 64 << 10

// ErrWideWindow is a value OpenPackStream does not read: it is not a zstd
// frame, or one compressed with a window wider than StreamWindow (by Pack,
// or by an earlier version of its writer).
var ErrWideWindow = errors.New("not a value packed for a stream")

var streamEncoder = sync.OnceValue(func() *zstd.Encoder {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(StreamWindow))
	if err != nil {
		panic(fmt.Sprintf("the stream packer's zstd options: %v", err)) // constants: never
	}
	return enc
})

// PackForStream compresses a value, as Pack does, with a window of
// StreamWindow, so that OpenPackStream can read it as a stream.
func PackForStream(b []byte) []byte { return streamEncoder().EncodeAll(b, nil) }

// PackStream reads a value PackForStream wrote as it is decompressed.
// A value that does not decode to its end (zstd's checksum of the whole
// included) is an error wrapping ErrCorrupt, found at the latest by the
// read that would have returned io.EOF: what was read before it is not to
// be believed. Close gives its decoder back.
type PackStream struct {
	dec *zstd.Decoder
}

// OpenPackStream starts reading data, a value PackForStream wrote; a value
// with a wider window is ErrWideWindow.
func OpenPackStream(data []byte) (*PackStream, error) {
	if !narrowWindow(data) {
		return nil, ErrWideWindow
	}
	dec, ok := decoders.Get().(*zstd.Decoder)
	if !ok {
		return nil, errors.New("packed stream: no zstd decoder")
	}
	if err := dec.Reset(bytes.NewReader(data)); err != nil {
		putDecoder(dec)
		return nil, fmt.Errorf("packed stream: %w: %v", ErrCorrupt, err)
	}
	return &PackStream{dec: dec}, nil
}

// Read reads the next decompressed bytes; io.EOF after the last, once the
// whole value checked out.
func (s *PackStream) Read(p []byte) (int, error) {
	if s.dec == nil {
		return 0, errors.New("packed stream: read after close")
	}
	n, err := s.dec.Read(p)
	if err != nil && err != io.EOF {
		return n, fmt.Errorf("packed stream: %w: %v", ErrCorrupt, err)
	}
	return n, err
}

// Close gives the decoder back; it may be called more than once.
func (s *PackStream) Close() error {
	putDecoder(s.dec)
	s.dec = nil
	return nil
}

// narrowWindow reports whether data is a zstd frame whose window is at
// most StreamWindow (a frame of one segment has its content's size).
func narrowWindow(data []byte) bool {
	var h zstd.Header
	if err := h.Decode(data); err != nil {
		return false
	}
	window := h.WindowSize
	if h.SingleSegment {
		window = h.FrameContentSize
	}
	return window <= StreamWindow
}
