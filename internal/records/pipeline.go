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
	"github.com/freshctx/freshctx/internal/scope"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/termsafe"
)

const (
	// maxLine bounds one line as the analysis sees it; the blob keeps all.
	maxLine = 4096
	// maxRefs bounds the distinct references collected; an output that
	// names more is noted (scan.dropped), and its record is at best unknown.
	maxRefs = 2000
	// headBytes of output are seen before a compressor is chosen.
	headBytes = 4096
	// An output of at most shortLines lines and shortBytes bytes is its
	// own digest: a digest of it saves next to nothing, and may drop what
	// the command was asked to print for a narrow selection (go test -v
	// -run X's t.Logf lines).
	shortLines = 40
	shortBytes = 2048
)

// outLine is one line of output on its way to the analysis.
type outLine struct {
	text   string
	stream Stream
	use    lineUse
	// clean is text as compress.Clean returns it, and refs what the search
	// of it for file references found, when cleaned: the scan reads a line
	// before the digest does and works both out for itself, and the digest
	// takes them from it instead of working them out again.
	clean   string
	refs    compress.Seen
	cleaned bool
	// safe says text is as termsafe.String returns it (sanitize asked):
	// compress.CleanSafe cleans it.
	safe bool
}

// cleanText is the line as a digest shows it: what a terminal shows of it.
func (l outLine) cleanText() string {
	switch {
	case l.cleaned:
		return l.clean
	case l.safe:
		return compress.CleanSafe(l.text)
	}
	return compress.Clean(l.text)
}

// lineUse says which part of the analysis a line is for.
type lineUse uint8

const (
	forBoth   lineUse = iota // the digest and the scan for references and facts
	forScan                  // a piece of a line too long to wait for
	forDigest                // such a line, whole, as the digest shows it
)

// maxPending bounds how much of an unfinished line a sink holds before it
// passes a piece of it on; the piece ends where redact.SafeCut says no
// secret is split.
const maxPending = 64 << 10

// sink receives one stream. It redacts secrets line by line, hands what is
// left to its counting goroutine to write to the stream's blob and count,
// and sends each line, truncated to maxLine and made safe to show
// (sanitize), to the analysis.
type sink struct {
	// blob and err (a failed write) are the counting goroutine's until
	// count.written returns; create makes the blob on the stream's first
	// output, unless err already says why it cannot be kept.
	blob     *store.BlobWriter
	create   func() (*store.BlobWriter, error)
	stream   Stream
	out      chan<- *lineBatch
	spare    <-chan *lineBatch // batches the analysis is done with (batches)
	batch    *lineBatch
	count    counting
	progress *atomic.Int64
	red      redact.Redactor

	pending []byte
	// before is the end (redact.Context bytes) of the pieces of the line
	// still arriving, as they came: the next piece is redacted knowing it.
	before []byte
	// long is the digest's line for a line still arriving in pieces (the
	// start of its first piece), and longMore the bytes after that start.
	long     *outLine
	longMore int
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
	k.sizeBatch(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			k.pending = append(k.pending, p...)
			if len(k.pending) >= maxPending {
				cut := redact.SafeCut(k.pending)
				k.emitPiece(k.pending[:cut], k.pending[cut:])
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
		if len(k.batch.lines) >= maxBatch {
			k.sendBatch() // a long write feeds the analysis as it goes
			k.sizeBatch(p)
		}
	}
	k.sendBatch()
	return n, nil
}

// sizeBatch starts a batch: one the analysis is done with, else one sized
// for the lines of p (grown line by line, batches were reallocated over
// and over).
func (k *sink) sizeBatch(p []byte) {
	if k.batch != nil {
		return
	}
	select {
	case b := <-k.spare:
		k.batch = b
	default:
		k.batch = &lineBatch{
			lines: make([]outLine, 0, min(bytes.Count(p, []byte{'\n'})+1, maxBatch)),
			text:  make([]byte, 0, min(len(p), maxBatchText)),
		}
	}
}

// add appends a line to the batch, starting one if none is.
func (k *sink) add(l outLine) {
	k.sizeBatch(nil)
	k.batch.lines = append(k.batch.lines, l)
}

// cut is lineBatch.cut on the batch, started if none is.
func (k *sink) cut(red []byte) (string, int) {
	k.sizeBatch(nil)
	return k.batch.cut(red)
}

// emit redacts the end of one line (all of it, or the last piece of a
// line that came in pieces) and passes it on.
func (k *sink) emit(line []byte, newline bool) {
	var red []byte
	if len(k.before) > 0 {
		red = k.red.Piece(k.before, line, nil)
		k.before = k.before[:0]
	} else {
		red = k.red.Line(line)
	}
	if red != nil { // nil inside a private key block: dropped whole, newline too
		k.store(red)
		if newline {
			k.store([]byte{'\n'})
		}
	}
	if k.long != nil {
		if red != nil {
			k.scanPiece(red)
			k.longMore += len(red)
		}
		k.endLong()
		return
	}
	if red == nil {
		return // inside a private key block: dropped whole
	}
	text, more := k.cut(red)
	if more > 0 {
		text += fmt.Sprintf(" … [%d more bytes on this line]", more)
	}
	text, safe := sanitize(text)
	k.add(outLine{text: text, stream: k.stream, safe: safe})
}

// emitPiece redacts a piece of a line too long to wait for. The scan sees
// the start of every piece, as it sees the start of every line; the digest
// sees the line once, when it ends: its start and how many bytes follow.
func (k *sink) emitPiece(piece, after []byte) {
	red := k.red.Piece(k.before, piece, after)
	k.keepBefore(piece)
	if red == nil {
		return // inside a private key block: dropped whole
	}
	k.store(red)
	k.scanPiece(red)
	if k.long == nil {
		text, more := headOf(red) // its own: it waits for the line's end
		k.long, k.longMore = &outLine{text: text, stream: k.stream, use: forDigest}, more
		return
	}
	k.longMore += len(red)
}

// keepBefore keeps the end of piece, as it came, for the next piece.
func (k *sink) keepBefore(piece []byte) {
	if len(piece) >= redact.Context {
		k.before = append(k.before[:0], piece[len(piece)-redact.Context:]...)
		return
	}
	k.before = append(k.before, piece...)
	if over := len(k.before) - redact.Context; over > 0 {
		k.before = k.before[:copy(k.before, k.before[over:])]
	}
}

func (k *sink) scanPiece(red []byte) {
	text, _ := k.cut(red)
	text, safe := sanitize(text)
	k.add(outLine{text: text, stream: k.stream, use: forScan, safe: safe})
}

// endLong passes on the digest's line for a line that came in pieces.
func (k *sink) endLong() {
	l := *k.long
	l.text, l.safe = sanitize(l.text + fmt.Sprintf(" … [%d more bytes on this line]", k.longMore))
	k.add(l)
	k.long, k.longMore = nil, 0
}

// headOf is the start of a line the analysis sees (maxLine bytes), as a
// string of its own, and how many bytes it leaves out.
func headOf(red []byte) (string, int) {
	if len(red) > maxLine {
		return string(red[:maxLine]), len(red) - maxLine
	}
	return string(red), 0
}

// size is how many bytes the stream's blob holds, once count.written
// returned.
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

// writeStored passes what store gathered to the counting goroutine, which
// writes it to the blob (writeBlob) and counts it.
func (k *sink) writeStored() {
	if len(k.stored) == 0 {
		return
	}
	k.stored = k.count.add(k.stored)
}

// writeBlob writes a chunk to the stream's blob, on the counting
// goroutine, creating the blob with the first: a failure is kept (err) and
// nothing more is written. Both the blob and err are the goroutine's until
// count.written returns.
func (k *sink) writeBlob(b []byte) {
	if k.blob == nil && k.err == nil {
		k.blob, k.err = k.create()
	}
	if k.err == nil {
		if _, err := k.blob.Write(b); err != nil {
			k.err = err
		}
	}
}

// sendBatch hands the lines of one write to the analysis at once: one
// channel operation per write, not per line.
func (k *sink) sendBatch() {
	if k.batch != nil && len(k.batch.lines) > 0 {
		k.out <- k.batch
		k.batch = nil
	}
}

// flush passes on a last line that had no newline, and ends the stream's
// count (counting.result waits for it).
func (k *sink) flush() {
	if len(k.pending) > 0 || k.long != nil {
		k.emit(k.pending, false)
		k.pending = nil
	}
	k.sendBatch()
	k.writeStored()
	k.count.end()
}

// analysis consumes lines: its scan, on a goroutine of its own, collects
// file references and facts from them, and hands each batch on to the
// digest, which picks a compressor from the head of the output and feeds
// it. The two share nothing but the lines, and a batch is with one at a
// time, so on two cores neither waits for the other.
type analysis struct {
	argv   []string
	intent compress.Intent
	root   string

	head     []outLine
	headSize int
	// short is the whole output when it was short enough to be its own
	// digest (shortLines, shortBytes); nil otherwise.
	short    []compress.Kept
	factory  compress.Factory
	comp     compress.Compressor
	prepared compress.PreparedLiner // comp, if it takes prepared lines
	sated    compress.Sated         // comp, if it can say it reads no more
	lines    atomic.Int64

	scan scan

	// fault is the first panic the digest survived; from then on every
	// line goes to fallback as it is (guard.go).
	fault    string
	fallback compress.Compressor
}

func newAnalysis(argv []string, intent compress.Intent, root string) *analysis {
	return &analysis{argv: argv, intent: intent, root: root, scan: scan{refIndex: map[string]int{}, goBlocks: newGoBlocks()}}
}

// consume reads every batch of lines, the scan first and then the digest
// (which gives it back to spare), and returns when both have seen the
// last.
//
// The digest may keep any line it reads to the end, so it reads a copy of
// each (outLine.owned) until its compressor says it reads no more
// (compress.Sated): a full digest copies nothing, and is told how many
// lines each batch held instead of being handed them one by one.
func (a *analysis) consume(in <-chan *lineBatch, spare batches) {
	scanned := make(chan *lineBatch, scanAhead) // the digest lags the scan by a few batches, no more
	go func() {
		a.scan.consume(in, scanned)
		close(scanned)
	}()
	for batch := range scanned {
		if a.fallback == nil && a.sated != nil && a.sated.Sated() {
			n := 0
			for _, l := range batch.lines {
				if l.use != forScan {
					n++
				}
			}
			a.lines.Add(int64(n))
			a.sated.Skip(n)
			spare.giveBack(batch)
			continue
		}
		for _, l := range batch.lines {
			if l.use == forScan {
				continue
			}
			a.lines.Add(1)
			if a.sated == nil || !a.sated.Sated() {
				l = l.owned()
			}
			if a.fallback != nil {
				a.fallback.Line(l.text)
				continue
			}
			a.guardedAdd(l)
		}
		spare.giveBack(batch)
	}
	if a.fallback == nil {
		a.guardedChoose()
	}
}

func (a *analysis) add(l outLine) {
	if a.comp != nil {
		a.feed(l)
		return
	}
	a.head = append(a.head, l)
	a.headSize += len(l.text) + 1
	if a.headSize >= headBytes {
		a.choose(false)
	}
}

// choose selects the compressor once the head is known and replays it.
// Called at the end of the output (final) with all of it in the head, it
// keeps a short output whole as its digest, unless the caller asked for
// less (--intent errors or tests).
func (a *analysis) choose(final bool) {
	if a.comp != nil {
		return
	}
	if final && a.intent == compress.Summary && len(a.head) <= shortLines && a.headSize <= shortBytes+len(a.head) {
		a.short = make([]compress.Kept, len(a.head))
		for i, l := range a.head {
			a.short[i] = compress.Kept{Text: l.cleanText(), Prio: compress.PrioPlain}
		}
	}
	var head bytes.Buffer
	for _, l := range a.head {
		head.WriteString(l.text)
		head.WriteByte('\n')
	}
	a.factory = selectCompressor(a.argv, head.Bytes())
	a.comp = a.factory.New(compress.Options{Intent: a.intent, Root: a.root})
	a.prepared, _ = a.comp.(compress.PreparedLiner)
	a.sated, _ = a.comp.(compress.Sated)
	for _, l := range a.head {
		a.feed(l)
	}
	a.head = nil
}

// feed hands a line to the compressor, as the scan prepared it where it
// did and the compressor takes that.
func (a *analysis) feed(l outLine) {
	if a.prepared != nil && l.cleaned {
		a.prepared.PreparedLine(compress.Prepared{Clean: l.clean, Refs: l.refs})
		return
	}
	a.comp.Line(l.text)
}

// scan collects the file references and facts of an output's lines.
type scan struct {
	facts    facts.Set
	refs     []refs.Ref
	refIndex map[string]int // a reference's key → its index in refs
	// last is a copy of the line scanned last (a line's text goes with its
	// batch, lineBatch.text), and lastSeen what its search for references
	// found: a line that repeats it is searched for neither references nor
	// facts again.
	last     []byte
	lastSeen compress.Seen
	// goBlocks says in which go test packages' output each reference
	// was seen (outdirs.go).
	goBlocks goBlocks
	// entered are the folders tools say they work in (outdirs.go).
	entered []string
	// dropped is the first reference past maxRefs, if the output named
	// more: the record cannot vouch for those (keep).
	dropped *refs.Ref

	// fault is the first panic the scan survived; skipped counts the lines
	// whose references and facts were lost to one.
	fault   string
	skipped int
}

// consume scans every batch of lines and hands it on to the digest.
func (s *scan) consume(in <-chan *lineBatch, digest chan<- *lineBatch) {
	for batch := range in {
		for i := range batch.lines {
			if batch.lines[i].use != forDigest {
				s.guardedLine(&batch.lines[i])
			}
		}
		digest <- batch
	}
}

// guardedLine scans one line, surviving a panic: the line's references and
// facts are then skipped, and the digest says so (guard.go). It leaves the
// cleaned line and what its search for references found in l for the
// digest.
func (s *scan) guardedLine(l *outLine) {
	defer func() {
		if r := recover(); r != nil {
			if s.fault == "" {
				s.fault = fmt.Sprintf("analysis failed while finding references and facts (%v)", r)
			}
			s.skipped++
		}
	}()
	var clean string
	if l.safe {
		clean = compress.CleanSafe(l.text)
	} else {
		clean = compress.Clean(l.text)
	}
	l.clean, l.cleaned = clean, true
	repeat := clean == string(s.last)
	if !repeat {
		s.last = append(s.last[:0], clean...)
	}
	l.refs = s.collectRefs(clean, repeat)
	if pkg, ok := goPackageLine(clean); ok {
		s.goBlocks.ended(pkg)
	} else if dir, ok := enteredDir(clean); ok {
		s.entered = scope.AddDir(s.entered, dir)
	}
	if !repeat {
		s.facts.Add(clean) // it keeps copies of what it keeps
	}
}

// collectRefs gathers the references of a cleaned line, and the go test
// blocks each is seen in, and says what it found (NotSearched once the
// output named more than maxRefs); a line that repeats the last one
// (repeat) is not searched again.
func (s *scan) collectRefs(text string, repeat bool) compress.Seen {
	if s.dropped != nil {
		return compress.NotSearched
	}
	if repeat {
		return s.lastSeen
	}
	s.lastSeen = compress.NotSearched
	found := lineRefs(text)
	for _, r := range found {
		key := r.Alt + "\x00" + r.Path
		if r.JavaClass != "" {
			key = r.JavaClass + "/" + r.Path
		}
		i, seen := s.refIndex[key]
		if !seen {
			r = ownedRef(r)
			if len(s.refs) >= maxRefs {
				s.dropped = &r
				return compress.NotSearched
			}
			i = len(s.refs)
			s.refIndex[key] = i
			s.refs = append(s.refs, r)
		}
		s.goBlocks.seen(i)
	}
	s.lastSeen = compress.NoRef
	if len(found) > 0 {
		s.lastSeen = compress.HasRef
	}
	return s.lastSeen
}

// ownedRef is r with strings of its own: they are cut from a line, whose
// text goes with its batch.
func ownedRef(r refs.Ref) refs.Ref {
	r.Path, r.JavaClass, r.Alt = strings.Clone(r.Path), strings.Clone(r.JavaClass), strings.Clone(r.Alt)
	return r
}

// overRef is a reference seen in the output of a go package past the
// packages followed, if any: where it lies is not known.
func (s *scan) overRef() *refs.Ref {
	if s.goBlocks.over < 0 {
		return nil
	}
	return &s.refs[s.goBlocks.over]
}

// lineRefs finds a line's file references, and selectCompressor picks the
// digest's compressor (variables so a test can make them fail).
var (
	lineRefs         = refs.Line
	selectCompressor = compress.Select
)

// sanitize makes a line safe to show: binary lines are summarised and
// invalid UTF-8 replaced. It says whether the line is safe for a terminal
// as it is (termsafe.Safe), which most lines are: one reading of them
// answers both.
func sanitize(s string) (string, bool) {
	if termsafe.Safe(s) {
		return s, true // no NUL, valid UTF-8
	}
	if strings.IndexByte(s, 0) >= 0 {
		return fmt.Sprintf("[%d bytes of binary output]", len(s)), false
	}
	if !utf8.ValidString(s) {
		return strings.ToValidUTF8(s, "\uFFFD"), false
	}
	return s, false
}
