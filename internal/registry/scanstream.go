package registry

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/freshctx/freshctx/internal/store"
)

// A scan streams the index: its rows go to the workers that lstat them a
// buffer at a time as it is decompressed, and the buffers come back when
// the workers are done with them. Decoded whole, the index of 100,000
// files is 8 MB of bytes and a 4.6 MB slice of rows, every page of it new
// to the process: on machines where a page touched first costs 11 µs,
// that was as long as decompressing it. Streamed, the rows never stand in
// memory whole, and the first lstat starts as soon as the first buffer is
// read. The index is packed for a stream (store.PackForStream), so the
// decompressor keeps a small window of history, not the whole value.

// scanBufSize is a stream buffer's size: some 400 rows of a usual tree.
const scanBufSize = 32 << 10

// errBadScan is a scan index that does not decode, or was written with a
// window wider than a stream's (by an earlier version): it is built again
// from the rows.
var errBadScan = errors.New("the scan index does not stream")

// scanBuf is a buffer of the decompressed index and the rows whose strings
// share it.
type scanBuf struct {
	b    []byte
	rows []stored
}

// scanChunk is rows for the workers. When buf is set the rows came from
// the index stream: buf goes back on the feed's free list once they are
// checked, after which neither the rows nor their strings may be kept (a
// worker keeps a moved path by copying it).
type scanChunk struct {
	rows []stored
	buf  *scanBuf
}

// scanFeed carries rows to the workers and stream buffers back.
type scanFeed struct {
	chunks chan scanChunk
	free   chan *scanBuf
}

func newScanFeed() scanFeed {
	return scanFeed{chunks: make(chan scanChunk, 8), free: make(chan *scanBuf, 16)}
}

// giveBack returns a stream buffer for reuse (dropped when enough are).
func (f scanFeed) giveBack(b *scanBuf) {
	select {
	case f.free <- b:
	default:
	}
}

// take returns a stream buffer of at least size bytes.
func (f scanFeed) take(size int) *scanBuf {
	select {
	case b := <-f.free:
		if cap(b.b) >= size {
			return b
		}
	default:
	}
	return &scanBuf{b: make([]byte, 0, size)}
}

// sendAll sends rows not from a stream, a few hundred at a time.
func (f scanFeed) sendAll(rows []stored) {
	for i := 0; i < len(rows); i += 512 {
		f.chunks <- scanChunk{rows: rows[i:min(i+512, len(rows))]}
	}
}

// streamScan decompresses the index data and sends its rows, but those of
// the paths in skip, to the workers a buffer at a time. It returns how
// many rows it sent (watched paths aside). A value that does not decode is
// errBadScan, found at the latest at its end (zstd's checksum of the
// whole): what was sent before it is not to be believed.
func streamScan(ctx context.Context, data []byte, skip map[string]bool, feed scanFeed) (int, error) {
	if len(data) == 0 {
		return 0, nil // the index of no rows
	}
	dec, err := store.OpenPackStream(data)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", errBadScan, err)
	}
	defer dec.Close()
	var carry []byte // a row cut at the end of the last buffer
	size, rows := scanBufSize, 0
	for {
		if err := ctx.Err(); err != nil {
			return rows, err
		}
		buf := feed.take(size)
		b := append(buf.b[:0], carry...)
		n, err := io.ReadFull(dec, b[len(b):cap(b)])
		b = b[:len(b)+n]
		end := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !end {
			return rows, fmt.Errorf("%w: %v", errBadScan, err)
		}
		buf.b = b
		used, kept := parseScan(buf, skip)
		rows += kept
		carry = append(carry[:0], b[used:]...)
		if len(buf.rows) > 0 {
			feed.chunks <- scanChunk{rows: buf.rows, buf: buf}
		} else {
			feed.giveBack(buf)
		}
		switch {
		case end && len(carry) > 0:
			return rows, fmt.Errorf("%w: a row cut short at its end", errBadScan)
		case end:
			return rows, nil
		case used == 0:
			size *= 2 // a row longer than a buffer
		}
	}
}

// parseScan reads the whole rows at the start of buf.b into buf.rows, but
// those of the paths in skip, their strings sharing buf.b. It returns the
// bytes they took and how many rows (watched paths aside) it kept.
func parseScan(buf *scanBuf, skip map[string]bool) (used, kept int) {
	buf.rows = buf.rows[:0]
	r := store.NewSharedPackReader(buf.b)
	for r.Left() > 0 {
		s := stored{path: r.String(), fp: r.String(), at: r.Int(), watched: r.Bool()}
		if r.Err != nil {
			break // cut at the buffer's end (or malformed: then at the stream's)
		}
		used = len(buf.b) - r.Left()
		if skip[s.path] {
			continue
		}
		buf.rows = append(buf.rows, s)
		if !s.watched {
			kept++
		}
	}
	return used, kept
}
