package integrate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"syscall"

	"github.com/freshctx/freshctx/internal/readcache"
)

// Claude Code's /rewind ("Restore conversation") takes messages out of the
// model's context and fires no hook. It writes, though, a "last-prompt"
// entry with "explicit": true to the conversation's transcript, as it does
// whenever it sets the conversation's leaf itself (a rewind, a fork):
// before the read cache answers from what the conversation was shown, the
// hook reads what the transcript gained since it last looked, and any such
// entry puts a barrier in the conversation's read session first. A
// transcript that cannot be read, or that shrank, is taken for a reset:
// more re-reads at worst, never an "unchanged" for what the model lost.

// leafMoved reads the transcript on from where session last left it and
// puts a barrier in the session when the conversation's leaf was moved.
// Hooks with no transcript (other agents, hand-made input) are left alone.
func leafMoved(ctx context.Context, session, transcript string, rc *readcache.Service) error {
	if transcript == "" {
		return nil
	}
	from, err := rc.TranscriptReadTo(ctx, session, transcript)
	if err != nil {
		return err
	}
	to, moved := scanTranscript(transcript, from)
	if moved {
		if _, err := rc.CompactExisting(ctx, session); err != nil {
			return err
		}
	}
	if to == from {
		return nil
	}
	return rc.SetTranscriptReadTo(ctx, session, transcript, to)
}

// maxTranscriptScan bounds what one hook reads of a transcript: between
// two hooks a conversation's transcript grows by its last turn, far less.
// A transcript that grew by more since the session last looked (or one
// that is not a regular file: a FIFO, /dev/zero) is not read: it counts as
// moved, and is read on from its end next time. A hook never waits on it.
const maxTranscriptScan = 32 << 20

// scanTranscript reads the complete lines of the transcript from byte
// offset from and returns where they end and whether one of them sets the
// leaf explicitly. A transcript that cannot be read, is not a regular
// file, is shorter than from or grew by more than maxTranscriptScan counts
// as moved.
func scanTranscript(path string, from int64) (to int64, moved bool) {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return from, true
	}
	// Opened without blocking: a FIFO put in its place meanwhile would
	// otherwise wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return from, true
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil || !fi.Mode().IsRegular():
		return from, true
	case fi.Size() < from:
		return 0, true
	case fi.Size()-from > maxTranscriptScan:
		return fi.Size(), true
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return from, true
	}
	r := bufio.NewReaderSize(io.LimitReader(f, fi.Size()-from), 64<<10)
	to = from
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line (a tool result) is no leaf entry: skip it whole.
			n := int64(len(line))
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = r.ReadSlice('\n')
				n += int64(len(line))
			}
			if err != nil {
				// Unfinished: read again next time; a failed read is a reset.
				return to, moved || !errors.Is(err, io.EOF)
			}
			to += n
			continue
		}
		if err != nil {
			// The unfinished last line is read next time; a failed read
			// (a folder, an I/O error) is a reset.
			return to, moved || !errors.Is(err, io.EOF)
		}
		to += int64(len(line))
		moved = moved || setsLeaf(line)
	}
}

// setsLeaf reports whether a transcript line is a "last-prompt" entry with
// "explicit": true.
func setsLeaf(line []byte) bool {
	if !bytes.Contains(line, []byte(`"last-prompt"`)) {
		return false
	}
	var e struct {
		Type     string `json:"type"`
		Explicit bool   `json:"explicit"`
	}
	return json.Unmarshal(line, &e) == nil && e.Type == "last-prompt" && e.Explicit
}
