package records

import (
	"strings"
	"unsafe"
)

// lineBatch is the lines of one write (or of maxBatch lines of it) on
// their way to the analysis, and the bytes most of their texts are cut
// from.
type lineBatch struct {
	lines []outLine
	// text holds the bytes of the lines' texts cut from it (cut): one
	// buffer per batch, reused with it, where a string allocated per line
	// was half of all a capture of source allocated. Such a text is valid
	// only until the batch is given back: whoever keeps one, or a part of
	// one, longer keeps a copy (outLine.owned, and the scan's own).
	text []byte
}

// cut copies the start of a line that the analysis sees (maxLine bytes)
// into the batch's text and returns it, and how many bytes it leaves out.
// Bytes once cut are never written again while the batch is out: append
// may move text, and the texts cut before keep the old bytes alive.
func (b *lineBatch) cut(red []byte) (string, int) {
	n := min(len(red), maxLine)
	if n == 0 {
		return "", len(red)
	}
	start := len(b.text)
	b.text = append(b.text, red[:n]...)
	return unsafe.String(&b.text[start], n), len(red) - n
}

// owned returns l with texts of its own, for a reader that keeps them
// after its batch goes back.
func (l outLine) owned() outLine {
	text := strings.Clone(l.text)
	if l.cleaned {
		if strings.HasPrefix(l.text, l.clean) {
			l.clean = text[:len(l.clean)] // the usual case: Clean trims the end
		} else {
			l.clean = strings.Clone(l.clean)
		}
	}
	l.text = text
	return l
}

// maxBatch bounds the lines handed to the analysis at once.
const maxBatch = 512

// batches carries the batches of lines the analysis is done with back to
// the sinks, emptied: a capture allocated the lines' slots anew for every
// batch, a fifth of all it allocated. It holds as many as can be on their
// way at once (linesAhead waiting for the scan, scanAhead for the digest,
// and one in the hands of each of the sink, the scan and the digest): with
// room for 8, a capture of 30 MB of source still allocated 15 MB of
// batches, and one of 100 MB took 60-62 collections instead of 42-45. A
// batch that finds the channel full is left to the collector.
type batches chan *lineBatch

func newBatches() batches { return make(batches, linesAhead+scanAhead+3) }

// linesAhead and scanAhead bound the batches waiting for the scan and, once
// scanned, for the digest: each holds up to maxBatch lines of up to
// maxLine bytes, and every batch in flight is memory the heap limit cannot
// reclaim.
const (
	linesAhead = 16
	scanAhead  = 4
)

// maxBatchText bounds the text a batch given back keeps for its next
// use: one of long lines (maxBatch of maxLine bytes) is let go.
const maxBatchText = 256 << 10

// giveBack empties a batch (its lines' texts go) and offers it again.
func (b batches) giveBack(batch *lineBatch) {
	clear(batch.lines)
	batch.lines = batch.lines[:0]
	if poisonGivenBack {
		for i := range batch.text {
			batch.text[i] = poison
		}
	}
	batch.text = batch.text[:0]
	if cap(batch.text) > maxBatchText {
		batch.text = nil
	}
	if !reuseBatches {
		return
	}
	select {
	case b <- batch:
	default:
	}
}

// Set by tests: poisonGivenBack overwrites the text of every batch given
// back with poison, so that a text kept past its batch (a missing copy)
// shows in what was kept; reuseBatches false leaves every batch to the
// collector, as if none were ever reused.
var poisonGivenBack, reuseBatches = false, true

const poison = 0xff
