package readcache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/freshctx/freshctx/internal/sha"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/tokens"
	"github.com/freshctx/freshctx/internal/workspace"
)

// Modes of a read.
const (
	ModeFull             = "full"
	ModeUnchanged        = "unchanged"
	ModeUnchangedRange   = "unchanged_range"
	ModeDiff             = "diff"
	ModeBaselineFallback = "baseline_fallback"
)

// maxStored bounds the files kept as diff bases and diffed.
const maxStored = 8 << 20

// maxReadable bounds the files read at all: a read holds the file in memory.
const maxReadable = 64 << 20

// ReadRequest is one read.
type ReadRequest struct {
	Session string
	// Target is PATH or PATH:N-M (1-based, inclusive; :N to the end).
	Target string
	// Offset (1-based first line) and Limit (lines) are the alternative
	// to :N-M; 0 means unset.
	Offset, Limit  int
	AllowSensitive bool
	// Seen, when set, is the text of these lines another tool has already
	// delivered (an agent's own read tool). The read is answered only if the
	// file's lines are exactly that now; else ErrSeenDiffers, and nothing
	// is recorded. What the other tool delivered is not cut again by this
	// service's output limits: the client's own limits made it.
	Seen *string
	// SeenTotal, when not 0, is how many lines the other tool said the
	// file has (in Form's count): a file of another length now is
	// ErrSeenDiffers, since the model was told of that length.
	SeenTotal int
	// Form, when set, is how the other tool turns the file's bytes into
	// the text it delivered: the file is read, compared, kept and diffed
	// in that form, and replacements are priced as the client sends them.
	Form Form
	// ClientKey, when set, names the answer's entry by the client's own
	// key for the tool call (Follow).
	ClientKey string
}

// ErrSeenDiffers: the lines another tool delivered are not the file's lines
// now (it changed between the two reads, or the tool altered them).
var ErrSeenDiffers = errors.New("the lines delivered differ from the file now")

// ReadResult is what the model gets.
type ReadResult struct {
	Entry      int64   `json:"entry"`
	Mode       string  `json:"mode"`
	Reason     string  `json:"reason"`
	Path       string  `json:"path"`
	Range      *[2]int `json:"range"`
	TotalLines int     `json:"total_lines"`
	Text       string  `json:"text"`
	// Tokens is what this answer cost and what a plain read would have.
	Tokens      int `json:"tokens"`
	PlainTokens int `json:"plain_tokens"`

	session string
	// counted is the note counted for the choice between it and the text,
	// as sent, and countedTokens its count (Service.noteCount), which
	// record keeps.
	counted       string
	countedTokens int
	// sent is a note's or a diff's Text as its client sends it (Claude
	// Code numbers its lines; "" means Text itself): what it costs.
	sent string
	// overNote says the text was served because a note saying it is
	// unchanged would cost as much: record keeps it with its count.
	overNote bool
}

// Session is the read session the read was answered in.
func (r *ReadResult) Session() string { return r.session }

// file is the target as it is now.
type file struct {
	rel     string
	abs     string // resolved, inside the root
	content []byte // the bytes just read, or their text in form
	// form is the client's form content is in (nil: freshctx's own).
	form    Form
	version string
	lines   int
	raw     []byte // the file's bytes as read
	binary  string // why the content is not served, if it is not
	// encoding names what content was decoded from when the file is not
	// UTF-8 ("" when it is): content is then the decoded text.
	encoding string
}

// Read answers a read from the session's trust and records it.
func (s *Service) Read(ctx context.Context, req ReadRequest) (*ReadResult, error) {
	f, rng, err := s.open(ctx, req)
	if err != nil {
		return nil, err
	}
	svc := s
	if req.Seen != nil {
		if err := f.delivered(req, rng); err != nil {
			return nil, err
		}
		// The client's limits cut what it delivered; none are added.
		unbounded := *s
		unbounded.MaxLines, unbounded.MaxBytes = math.MaxInt32, math.MaxInt32
		svc = &unbounded
	}
	var res *ReadResult
	err = s.Store.Update(ctx, func(tx *store.Tx) error {
		var err error
		if res, err = svc.answer(ctx, tx, req.Session, f, rng); err != nil {
			return err
		}
		return keyEntry(ctx, tx, req.Session, req.ClientKey, res.Entry)
	})
	if err == nil && f.encoding != "" {
		noteEncoding(res, f)
	}
	return res, err
}

// delivered puts f in the form the other tool delivered it in and checks
// that the lines it delivered, and the length it told, are f's now.
func (f *file) delivered(req ReadRequest, rng lineRange) error {
	if req.Form != nil {
		if f.binary != "" {
			return fmt.Errorf("%s is a %s file: %w", f.rel, f.binary, ErrSeenDiffers)
		}
		text := req.Form.Text(f.raw)
		f.content, f.form, f.encoding = []byte(text), req.Form, ""
		f.version, f.lines = sha.Bytes(f.content).String(), countLines(f.content)
	}
	total := f.lines
	if req.Form != nil {
		total = req.Form.TotalLines(string(f.content))
	}
	if req.SeenTotal != 0 && req.SeenTotal != total {
		return fmt.Errorf("%s has %d lines, the tool said %d: %w", f.rel, total, req.SeenTotal, ErrSeenDiffers)
	}
	if !seenMatches(f.content, rng, *req.Seen, req.Form != nil) {
		return fmt.Errorf("%s: %w", f.rel, ErrSeenDiffers)
	}
	return nil
}

// open reads the file a request names, with the scope it asks for,
// refusing a sensitive one unless allowed.
func (s *Service) open(ctx context.Context, req ReadRequest) (*file, lineRange, error) {
	rel, rng, err := s.parseTarget(req.Target)
	if err != nil {
		return nil, rng, err
	}
	if rng, err = withOffset(req, rng); err != nil {
		return nil, rng, err
	}
	if why := workspace.Sensitive(rel); why != "" && !req.AllowSensitive {
		return nil, rng, fmt.Errorf("%s is %s: not served without --allow-sensitive", rel, why)
	}
	f, err := s.load(ctx, rel)
	if err != nil {
		return nil, rng, err
	}
	if why := s.WS.SensitiveFile(rel, f.abs, f.content); why != "" && !req.AllowSensitive {
		return nil, rng, fmt.Errorf("%s is %s: not served without --allow-sensitive", rel, why)
	}
	return f, rng, nil
}

// bounds is the first and last line of lines a scope asks for.
func (f *file) bounds(lines []string, rng lineRange) (start, end int, err error) {
	start, end = 1, len(lines)
	if rng.start != 0 {
		if rng.start > len(lines) {
			return 0, 0, fmt.Errorf("%s has %d lines: line %d is past the end", f.rel, len(lines), rng.start)
		}
		start = rng.start
		if rng.end != 0 {
			end = min(rng.end, len(lines))
		}
	}
	return start, end, nil
}

// withOffset narrows a whole-file scope to --offset and --limit (0: not
// given), refusing them beside a PATH:N-M and below zero.
func withOffset(req ReadRequest, rng lineRange) (lineRange, error) {
	switch {
	case req.Offset < 0:
		return rng, &RangeError{fmt.Sprintf("--offset %d", req.Offset), "the first line to read, 1 or more"}
	case req.Limit < 0:
		return rng, &RangeError{fmt.Sprintf("--limit %d", req.Limit), "how many lines to read, 1 or more"}
	case req.Offset == 0 && req.Limit == 0:
		return rng, nil
	case rng.start != 0:
		return rng, &RangeError{req.Target + " with --offset/--limit", "either PATH:N-M or --offset/--limit, not both"}
	}
	rng.start = max(req.Offset, 1)
	if req.Limit > 0 {
		rng.end = rng.start + req.Limit - 1
	}
	return rng, nil
}

// noteEncoding tells the reader that what it sees was decoded: the lines
// are the file's, but its bytes are not UTF-8.
func noteEncoding(res *ReadResult, f *file) {
	note := fmt.Sprintf("%s is not UTF-8; shown decoded as %s", f.rel, f.encoding)
	res.Reason = strings.TrimPrefix(res.Reason+"; "+note, "; ")
	if res.Mode == ModeFull || res.Mode == ModeDiff || res.Mode == ModeBaselineFallback {
		res.Text = "[" + note + "]\n" + res.Text
		res.Tokens = countTokens(res.Text)
	}
}

// load reads the file's bytes now. Every answer is decided from these
// bytes, never from a stat: a write that kept size and mtime cannot fool it.
func (s *Service) load(ctx context.Context, rel string) (*file, error) {
	abs, err := s.WS.Resolve(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file", rel)
		}
		return nil, err // names the path and where it links
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", rel, err)
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a directory", rel)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file (%v)", rel, fi.Mode().Type())
	case fi.Size() > maxReadable:
		return nil, fmt.Errorf("%s is %d MiB, over the %d MiB the read cache handles; read a part of it with another tool",
			rel, fi.Size()>>20, maxReadable>>20)
	}
	content, err := readAtMost(abs, maxReadable)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	f := &file{rel: rel, abs: abs, content: content, raw: content, version: sha.Bytes(content).String(), lines: countLines(content)}
	if bytes.IndexByte(content[:min(len(content), 8192)], 0) >= 0 {
		f.binary = "binary"
	} else if !utf8.Valid(content) {
		if looksLikeText(content) {
			f.content, f.encoding = latin1(content), "Latin-1 (ISO-8859-1)"
		} else {
			f.binary = "not UTF-8 text"
		}
	}
	return f, nil
}

// looksLikeText reports a file of text in a single-byte encoding: few
// control characters besides tab, newline, carriage return and form feed.
func looksLikeText(b []byte) bool {
	ctl := 0
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' || c == 0x7f {
			ctl++
		}
	}
	return ctl*100 <= len(b)
}

// latin1 decodes ISO-8859-1 into UTF-8; its C1 control characters (0x80 to
// 0x9F) become U+FFFD, as nothing should act on them.
func latin1(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/8)
	for _, c := range b {
		switch {
		case c < 0x80:
			out = append(out, c)
		case c < 0xa0:
			out = utf8.AppendRune(out, utf8.RuneError)
		default:
			out = utf8.AppendRune(out, rune(c))
		}
	}
	return out
}

// readAtMost reads a file, refusing one that grew past limit meanwhile.
func readAtMost(abs string, limit int64) ([]byte, error) {
	fh, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("grew past %d MiB while being read", limit>>20)
	}
	return b, nil
}

// countLines counts lines as an editor shows them: a last line without a
// newline still counts.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// seenMatches compares the lines of rng with text another tool delivered.
// Text in a client's form (form) matches when it is exactly those lines
// as the client joins them: at "\n", the last line without its newline,
// the whole file as it is. Any text also matches, as it did before the
// forms, when the two differ by no more than a final newline; a range
// whose last line is empty matches only exactly, since its text ends in
// the newline that joins that line.
func seenMatches(content []byte, rng lineRange, seen string, form bool) bool {
	if form && rng.start == 0 && string(content) == seen {
		return true
	}
	lines := splitLines(content)
	start, end := 1, len(lines)
	if rng.start != 0 {
		start = rng.start
		if rng.end != 0 {
			end = min(rng.end, len(lines))
		}
	}
	if start > len(lines)+1 {
		return false
	}
	var got string
	if start <= end {
		got = strings.Join(lines[start-1:end], "")
	}
	got = strings.TrimSuffix(got, "\n")
	return form && got == seen || got == strings.TrimSuffix(seen, "\n")
}

// splitLines returns the lines of b, each with its newline.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// countTokens counts s. A full answer is counted as the plain tool's cost,
// as the version kept and as what was served, a diff answer against the
// file's count: the last texts counted are remembered, so the same text is
// tokenized once (7 ms for 50 KB).
func countTokens(s string) int {
	countsMade.Add(1)
	if len(s) < memoMin {
		return tokens.Count(s)
	}
	if n, ok := counted.get(s); ok {
		return n
	}
	n := tokens.Count(s)
	counted.put(s, n)
	return n
}

// countsMade counts the calls of countTokens: a test's proof that an
// answer made no count.
var countsMade atomic.Int64

// memoMin is the shortest text remembered: shorter ones count faster than
// they compare.
const memoMin = 1 << 10

// countMemo remembers the counts of the last few texts counted.
type countMemo struct {
	mu    sync.Mutex
	texts [2]string
	ns    [2]int
	next  int
}

var counted countMemo

func (m *countMemo) get(s string) (int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, t := range m.texts {
		if t == s {
			return m.ns[i], true
		}
	}
	return 0, false
}

func (m *countMemo) put(s string, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.texts[m.next], m.ns[m.next] = s, n
	m.next = (m.next + 1) % len(m.texts)
}

// cheaper reports whether note costs fewer tokens than n. Every token of
// valid UTF-8 text is at least one of its bytes, so a note shorter in
// bytes than n is cheaper, and one with at least n tokens by
// tokens.AtLeast is not, without loading the tokenizer to count it: that
// took about 25 ms of every read of a file of a line or two, answered in
// full all the same. Between the two bounds count counts the note
// (countTokens, or Service.noteCount, which finds a count kept).
func cheaper(note string, n int, count func(string) int) bool {
	if len(note) < n && utf8.ValidString(note) {
		return true
	}
	if tokens.AtLeast(note) >= n {
		return false
	}
	return count(note) < n
}
