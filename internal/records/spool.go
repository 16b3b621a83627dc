package records

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
)

// spool takes a command's output as fast as the command writes it and hands
// it on, in the order it was written, to the slower analysis: the command
// is never held back by redaction, compression or counting, and its own
// duration is what the record reports. Up to memLimit bytes wait in memory;
// the rest waits in a temporary file that is unlinked as soon as it is
// made (it holds output not yet redacted, so nothing of it may outlive the
// process). If no such file can be made, writers wait for room instead:
// slowing the command is better than losing its output.
type spool struct {
	// dir is the folder a spill file is made in, asked for at the first
	// spill (the store's blob folder may still be opening).
	dir      func() string
	memLimit int
	// patient: the writer can wait (it reads a regular file, not a
	// command's pipe), so its output is never written to a file only to
	// be read back.
	patient bool

	mu      sync.Mutex
	changed *sync.Cond
	queue   []piece
	mem     int // bytes of queued pieces held in memory
	file    *os.File
	fileEnd int64 // where the next spilled piece goes
	spilled int   // queued pieces in the file
	fileErr error // the file could not be made or written: wait instead
	closed  bool
}

// piece is one write of one stream: its bytes, or where they wait in the file.
type piece struct {
	stream Stream
	data   []byte
	off    int64
	n      int
}

// spoolMemory is how much output waits in memory before it is spilled.
const spoolMemory = 2 << 20

func newSpool(dir func() string) *spool {
	s := &spool{dir: dir, memLimit: spoolMemory}
	s.changed = sync.NewCond(&s.mu)
	return s
}

// writer is the io.Writer of one stream.
func (s *spool) writer(stream Stream) io.Writer { return spoolWriter{s, stream} }

type spoolWriter struct {
	s      *spool
	stream Stream
}

func (w spoolWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 { // in pieces, so the stages behind work side by side
		piece := p[:min(len(p), maxPiece)]
		w.s.put(w.stream, piece)
		p = p[len(piece):]
	}
	return n, nil
}

// maxPiece bounds one queued piece.
const maxPiece = 64 << 10

// put queues a copy of p.
func (s *spool) put(stream Stream, p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.mem+len(p) > s.memLimit && s.mem > 0 {
		if !s.patient && s.fileErr == nil && s.spill(stream, p) {
			return
		}
		s.changed.Wait() // no file: wait until the consumer makes room
	}
	s.queue = append(s.queue, piece{stream: stream, data: append([]byte(nil), p...)})
	s.mem += len(p)
	s.changed.Broadcast()
}

// spill writes p to the file and queues where it is; false if the file
// failed (fileErr says why).
func (s *spool) spill(stream Stream, p []byte) bool {
	if s.file == nil {
		dir := s.dir()
		f, err := os.CreateTemp(dir, "spool-*")
		if errors.Is(err, fs.ErrNotExist) && os.MkdirAll(dir, 0o700) == nil {
			// The blob folder is made by a stream's first blob, which a
			// new store's first capture can need to spill before.
			f, err = os.CreateTemp(dir, "spool-*")
		}
		if err != nil {
			s.fileErr = err
			return false
		}
		os.Remove(f.Name())
		s.file = f
	}
	if _, err := s.file.WriteAt(p, s.fileEnd); err != nil {
		s.fileErr = err
		return false
	}
	s.queue = append(s.queue, piece{stream: stream, off: s.fileEnd, n: len(p)})
	s.fileEnd += int64(len(p))
	s.spilled++
	s.changed.Broadcast()
	return true
}

// close says no more output will come.
func (s *spool) close() {
	s.mu.Lock()
	s.closed = true
	s.changed.Broadcast()
	s.mu.Unlock()
}

// drain hands every piece, in order, to deliver until the spool is closed
// and empty, then removes the file. A piece that cannot be read back from
// the file is reported as a line saying how much was lost, and the error
// is returned at the end.
func (s *spool) drain(deliver func(Stream, []byte)) error {
	var buf []byte
	var lost error
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && !s.closed {
			s.changed.Wait()
		}
		if len(s.queue) == 0 {
			s.mu.Unlock()
			break
		}
		p := s.queue[0]
		s.queue[0] = piece{}
		s.queue = s.queue[1:]
		file := s.file
		s.mu.Unlock()

		data := p.data
		if data == nil {
			buf = growTo(buf, p.n)
			if _, err := file.ReadAt(buf, p.off); err != nil {
				if lost == nil {
					lost = fmt.Errorf("read back %d bytes of spooled output: %w", p.n, err)
				}
				data = fmt.Appendf(nil, "[freshctx: %d bytes of output lost: %v]\n", p.n, err)
			} else {
				data = buf
			}
		}
		deliver(p.stream, data)

		s.mu.Lock()
		if p.data != nil {
			s.mem -= len(p.data)
		} else if s.spilled--; s.spilled == 0 {
			s.fileEnd = 0 // everything spilled was read: reuse the file from its start
		}
		s.changed.Broadcast()
		s.mu.Unlock()
	}
	if s.file != nil {
		s.file.Close()
	}
	return lost
}

func growTo(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}
