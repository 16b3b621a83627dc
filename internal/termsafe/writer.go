package termsafe

import (
	"bytes"
	"io"
)

// maxPending bounds what a Writer holds back waiting for a newline.
const maxPending = 64 << 10

// Writer passes text through String a line at a time, so a sequence split
// across writes is still removed whole. Call Flush after the last write.
type Writer struct {
	w       io.Writer
	pending []byte
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write cleans every complete line of p and holds back the rest.
func (w *Writer) Write(p []byte) (int, error) {
	w.pending = append(w.pending, p...)
	cut := bytes.LastIndexByte(w.pending, '\n') + 1
	if cut == 0 && len(w.pending) > maxPending {
		cut = len(w.pending)
	}
	if cut == 0 {
		return len(p), nil
	}
	out := String(string(w.pending[:cut]))
	w.pending = append(w.pending[:0], w.pending[cut:]...)
	if _, err := io.WriteString(w.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held back.
func (w *Writer) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	out := String(string(w.pending))
	w.pending = w.pending[:0]
	_, err := io.WriteString(w.w, out)
	return err
}
