package records

import (
	"bytes"
	"fmt"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/freshctx/freshctx/internal/compress"
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

// sink receives one stream: it writes every byte to the stream's blob,
// counts tokens, and sends lines, truncated to maxLine, to the analysis.
type sink struct {
	blob     *store.BlobWriter
	stream   Stream
	out      chan<- []outLine
	batch    []outLine
	counter  tokens.Counter
	progress *atomic.Int64

	cur     []byte
	dropped int
	err     error
}

// Write implements io.Writer; a failing blob write is reported once and
// later bytes are still passed on so the command is never blocked.
func (k *sink) Write(p []byte) (int, error) {
	if k.err == nil {
		if _, err := k.blob.Write(p); err != nil {
			k.err = err
		}
	}
	k.counter.Add(string(p))
	k.progress.Add(int64(len(p)))
	for chunk := p; len(chunk) > 0; {
		i := bytes.IndexByte(chunk, '\n')
		part := chunk
		if i >= 0 {
			part = chunk[:i]
		}
		if room := maxLine - len(k.cur); len(part) > room {
			k.cur = append(k.cur, part[:room]...)
			k.dropped += len(part) - room
		} else {
			k.cur = append(k.cur, part...)
		}
		if i < 0 {
			break
		}
		k.send()
		chunk = chunk[i+1:]
	}
	k.sendBatch()
	return len(p), nil
}

// sendBatch hands the lines of one write to the analysis at once: one
// channel operation per write, not per line.
func (k *sink) sendBatch() {
	if len(k.batch) > 0 {
		k.out <- k.batch
		k.batch = nil
	}
}

func (k *sink) send() {
	text := string(k.cur)
	if k.dropped > 0 {
		text += fmt.Sprintf(" … [%d more bytes on this line]", k.dropped)
	}
	k.batch = append(k.batch, outLine{text: text, stream: k.stream})
	k.cur, k.dropped = k.cur[:0], 0
}

// flush sends a last line that had no newline.
func (k *sink) flush() {
	if len(k.cur) > 0 || k.dropped > 0 {
		k.send()
	}
	k.sendBatch()
}

// analysis consumes lines: it picks a compressor from the head of the
// output, feeds it, and collects file references.
type analysis struct {
	argv   []string
	intent compress.Intent

	head     []outLine
	headSize int
	factory  compress.Factory
	comp     compress.Compressor

	refs     []refs.Ref
	refSeen  map[string]bool
	lastLine string // references of a repeated line are not searched again
	lines    atomic.Int64
}

func newAnalysis(argv []string, intent compress.Intent) *analysis {
	return &analysis{argv: argv, intent: intent, refSeen: map[string]bool{}}
}

func (a *analysis) consume(in <-chan []outLine) {
	for batch := range in {
		for _, l := range batch {
			a.add(l)
		}
	}
	a.choose()
}

func (a *analysis) add(l outLine) {
	a.lines.Add(1)
	text := sanitize(l.text)
	a.collectRefs(text)
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
	a.comp = a.factory.New(a.intent)
	for _, l := range a.head {
		a.comp.Line(l.text)
	}
	a.head = nil
}

func (a *analysis) collectRefs(text string) {
	if len(a.refs) >= maxRefs || text == a.lastLine {
		return
	}
	a.lastLine = text
	for _, r := range refs.Line(compress.Clean(text)) {
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
