package records

import (
	"bytes"
	"fmt"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/freshctx/freshctx/internal/compress"
	"github.com/freshctx/freshctx/internal/facts"
	"github.com/freshctx/freshctx/internal/redact"
	"github.com/freshctx/freshctx/internal/refs"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/tokens"
)

const (
	// maxLine bounds one line as the analysis sees it; the blob keeps all.
	maxLine = 4096
	// maxRefs bounds the distinct references collected.
	maxRefs = 2000
	// headBytes of output are seen before a compressor is chosen.
	headBytes = 4096
)

// outLine is one line of output on its way to the analysis.
type outLine struct {
	text   string
	stream Stream
}

// maxPending bounds how much of an unfinished line a sink holds before it
// passes a piece of it on; the piece ends where redact.SafeCut says no
// secret is split.
const maxPending = 64 << 10

// sink receives one stream. It redacts secrets line by line, writes what is
// left to the stream's blob, counts its tokens, and sends each line,
// truncated to maxLine, to the analysis.
type sink struct {
	blob     *store.BlobWriter
	stream   Stream
	out      chan<- []outLine
	batch    []outLine
	counter  tokens.Counter
	progress *atomic.Int64
	red      redact.Redactor

	pending []byte
	// stored is redacted output on its way to the blob and the counter,
	// written in pieces of storeChunk: a write per line cost more than the
	// compression.
	stored []byte
	err    error
}

const storeChunk = 64 << 10

// Write implements io.Writer. A failing blob write is reported once, at the
// end; later bytes are still analysed so the command is never blocked.
func (k *sink) Write(p []byte) (int, error) {
	n := len(p)
	k.progress.Add(int64(n))
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			k.pending = append(k.pending, p...)
			if len(k.pending) >= maxPending {
				cut := redact.SafeCut(k.pending)
				k.emit(k.pending[:cut], false)
				k.pending = append(k.pending[:0], k.pending[cut:]...)
			}
			break
		}
		line := p[:i]
		if len(k.pending) > 0 {
			line = append(k.pending, line...)
		}
		k.emit(line, true)
		k.pending = k.pending[:0]
		p = p[i+1:]
		if len(k.batch) >= maxBatch {
			k.sendBatch() // a long write feeds the analysis as it goes
		}
	}
	k.sendBatch()
	return n, nil
}

// maxBatch bounds the lines handed to the analysis at once.
const maxBatch = 512

// emit redacts one line (or a piece of one) and passes it on.
func (k *sink) emit(line []byte, newline bool) {
	red := k.red.Line(line)
	if red == nil {
		return // inside a private key block: dropped whole
	}
	k.store(red)
	if newline {
		k.store([]byte{'\n'})
	}
	text := red
	more := 0
	if len(text) > maxLine {
		text, more = text[:maxLine], len(text)-maxLine
	}
	s := string(text)
	if more > 0 {
		s += fmt.Sprintf(" … [%d more bytes on this line]", more)
	}
	k.batch = append(k.batch, outLine{text: s, stream: k.stream})
}

// size is how many bytes the stream's blob holds.
func (k *sink) size() int64 {
	if k.blob == nil {
		return 0
	}
	return k.blob.Size() + int64(len(k.stored))
}

func (k *sink) store(b []byte) {
	k.stored = append(k.stored, b...)
	if len(k.stored) >= storeChunk {
		k.writeStored()
	}
}

// writeStored passes what store gathered to the blob and the counter.
func (k *sink) writeStored() {
	if len(k.stored) == 0 {
		return
	}
	if k.err == nil {
		if _, err := k.blob.Write(k.stored); err != nil {
			k.err = err
		}
	}
	k.counter.Add(string(k.stored))
	k.stored = k.stored[:0]
}

// sendBatch hands the lines of one write to the analysis at once: one
// channel operation per write, not per line.
func (k *sink) sendBatch() {
	if len(k.batch) > 0 {
		k.out <- k.batch
		k.batch = nil
	}
}

// flush passes on a last line that had no newline.
func (k *sink) flush() {
	if len(k.pending) > 0 {
		k.emit(k.pending, false)
		k.pending = nil
	}
	k.sendBatch()
	k.writeStored()
}

// analysis consumes lines: it picks a compressor from the head of the
// output, feeds it, and collects file references.
type analysis struct {
	argv   []string
	intent compress.Intent
	root   string

	head     []outLine
	headSize int
	factory  compress.Factory
	comp     compress.Compressor

	facts     facts.Set
	refs      []refs.Ref
	refSeen   map[string]bool
	lastLine  string // references of a repeated line are not searched again
	lastFacts string
	lines     atomic.Int64

	// fault is the first panic the analysis survived; from then on every
	// line goes to fallback as it is (guard.go).
	fault    string
	fallback compress.Compressor
}

func newAnalysis(argv []string, intent compress.Intent, root string) *analysis {
	return &analysis{argv: argv, intent: intent, root: root, refSeen: map[string]bool{}}
}

func (a *analysis) consume(in <-chan []outLine) {
	for batch := range in {
		for _, l := range batch {
			if a.fallback != nil {
				a.fallback.Line(sanitize(l.text))
				continue
			}
			a.guardedAdd(l)
		}
	}
	if a.fallback == nil {
		a.guardedChoose()
	}
}

func (a *analysis) add(l outLine) {
	a.lines.Add(1)
	text := sanitize(l.text)
	clean := compress.Clean(text)
	a.collectRefs(clean)
	if clean != a.lastFacts {
		a.facts.Add(clean)
		a.lastFacts = clean
	}
	if a.comp != nil {
		a.comp.Line(text)
		return
	}
	a.head = append(a.head, outLine{text: text, stream: l.stream})
	a.headSize += len(text) + 1
	if a.headSize >= headBytes {
		a.choose()
	}
}

// choose selects the compressor once the head is known and replays it.
func (a *analysis) choose() {
	if a.comp != nil {
		return
	}
	var head bytes.Buffer
	for _, l := range a.head {
		head.WriteString(l.text)
		head.WriteByte('\n')
	}
	a.factory = compress.Select(a.argv, head.Bytes())
	a.comp = a.factory.New(compress.Options{Intent: a.intent, Root: a.root})
	for _, l := range a.head {
		a.comp.Line(l.text)
	}
	a.head = nil
}

// collectRefs gathers the references of a cleaned line.
func (a *analysis) collectRefs(text string) {
	if len(a.refs) >= maxRefs || text == a.lastLine {
		return
	}
	a.lastLine = text
	for _, r := range lineRefs(text) {
		key := r.Path
		if r.JavaClass != "" {
			key = r.JavaClass + "/" + r.Path
		}
		if !a.refSeen[key] {
			a.refSeen[key] = true
			a.refs = append(a.refs, r)
		}
	}
}

// lineRefs finds a line's file references (a variable so a test can make
// it fail).
var lineRefs = refs.Line

// sanitize makes a line safe to show: binary lines are summarised and
// invalid UTF-8 replaced.
func sanitize(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return fmt.Sprintf("[%d bytes of binary output]", len(s))
	}
	if !utf8.ValidString(s) {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}
