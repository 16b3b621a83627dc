// Package redact removes secrets from text before freshctx stores or shows
// any of it.
//
// The ruleset is the field's standard one, gitleaks' default configuration
// (its rules, keywords, entropy limits and allowlists), plus freshctx's own
// rules for what gitleaks leaves out: credentials in URLs, `--password X`
// style flags, `*_PASSWORD=` / `*_KEY=` / `*_TOKEN=` assignments whose value
// has the shape of a secret, authorization headers, Azure storage keys and
// SAS signatures, and private key blocks spanning many lines.
//
// The contract:
//   - A secret is replaced by Mark; nothing else on the line changes.
//   - A path or a file reference (`dir/file.go`, `file.go:12:5`) is never
//     redacted, whatever words it contains.
//   - Lines are scanned only when they hold one of the rules' keywords
//     (an Aho-Corasick prefilter), so benign output costs little.
//   - On a long line (a minified bundle), a rule whose every match lies
//     near a keyword runs only on the stretches around the keywords its
//     gate admits, and finds there all it finds on the whole line
//     (TestWindowsFindWhatTheWholeLineDoes).
//
// A Redactor works line by line and keeps state across lines (a private key
// block spans many); it is used by one goroutine. The rules themselves are
// built once per process and shared.
package redact

import (
	"bytes"
	"sort"

	"github.com/freshctx/freshctx/internal/rx"
)

// Mark is what a redacted value is replaced with.
const Mark = "[REDACTED]"

// KindPrivateKey is the kind of a private key block.
const KindPrivateKey = "private-key"

var (
	keyBegin = rx.MustCompile(`-----BEGIN[A-Z0-9 _-]*PRIVATE KEY( BLOCK)?-----`)
	keyEnd   = rx.MustCompile(`-----END[A-Z0-9 _-]*PRIVATE KEY( BLOCK)?-----`)
)

// Redactor redacts a stream of lines.
type Redactor struct {
	inKey bool
	layout
	count int
	kinds map[string]int
	scan  scratch
}

// Count is the number of secrets redacted so far.
func (r *Redactor) Count() int { return r.count }

// Kinds lists the kinds of secret redacted so far (gitleaks rule ids or
// freshctx's own kind names), sorted.
func (r *Redactor) Kinds() []string {
	out := make([]string, 0, len(r.kinds))
	for k := range r.kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// InKey reports whether the stream is inside a private key block.
func (r *Redactor) InKey() bool { return r.inKey }

// String redacts one string that is not part of a stream (a label, a
// command line, an argument).
func String(s string) (string, int) {
	var r Redactor
	out := r.Line([]byte(s))
	return string(out), r.count
}

// Line returns line with its secrets replaced; line must not contain its
// newline. The result may share memory with line. A line inside a private
// key block yields nil: the key material is dropped whole.
func (r *Redactor) Line(line []byte) []byte {
	if r.inKey {
		if loc := keyEnd.Std().FindIndex(line); loc != nil {
			r.inKey = false
			return r.Line(line[loc[0]:])
		}
		return nil
	}
	if out, ok := r.ppk(line); ok {
		return out
	}
	if !bytes.Contains(line, []byte("-----BEGIN")) {
		return r.secrets(line)
	}
	if loc := keyBegin.Std().FindIndex(line); loc != nil {
		r.found(KindPrivateKey)
		head := append([]byte{}, line[:loc[1]]...)
		if end := keyEnd.Std().FindIndex(line[loc[1]:]); end != nil {
			head = append(head, " "+Mark+" "...)
			return append(head, line[loc[1]+end[0]:]...)
		}
		r.inKey = true
		return append(head, " "+Mark...)
	}
	return r.secrets(line)
}

func (r *Redactor) found(kind string) {
	r.count++
	if r.kinds == nil {
		r.kinds = map[string]int{}
	}
	r.kinds[kind]++
}

// secrets applies every rule whose keyword the line holds: each finds its
// secrets in the line as it came, overlapping finds merge, and a find that
// lies inside a file reference is dropped.
func (r *Redactor) secrets(line []byte) []byte {
	netrc := r.netrcFinds(line) // every line: it follows the entry
	if bytes.IndexByte(line, 0x1b) >= 0 {
		if fs, ok := r.escapedFinds(line); ok {
			return r.replace(line, joinFinds(fs, netrc))
		}
	}
	if !built.Load() && !mayHold(line) {
		return r.replace(line, netrc) // no need to build the ruleset for this line
	}
	return r.replace(line, joinFinds(r.finds(line), netrc))
}

// joinFinds merges the finds of a line's layout into the rules' finds.
func joinFinds(fs, more []find) []find {
	if len(more) == 0 {
		return fs
	}
	return merge(append(fs, more...))
}

// finds lists the secrets of line, merged, in order.
func (r *Redactor) finds(line []byte) []find {
	e := rules()
	// The gates and windows look at ASCII bytes; a line holding what case
	// folding matches for `s` or `k` runs every rule whose keyword it
	// holds, on all of it.
	var finds []find
	if pgpassGate(line) { // a .pgpass entry, which no keyword leads to
		finds = pgpassLine.findIn(line, span{0, len(line)}, finds)
	}
	hit := r.scan.hits(e, line, false)
	folds := false
	if r.scan.rejected || len(line) >= windowFrom {
		if folds = hasFoldVariant(line); folds && r.scan.rejected {
			hit = r.scan.hits(e, line, true)
		}
	}
	if hit == nil && len(finds) == 0 {
		return nil
	}
	if hit == nil {
		return merge(finds)
	}
	windowed := len(line) >= windowFrom && !folds
	for _, i := range hit.gitleaks {
		g := e.gitleaks[i]
		finds = g.find(line, r.scan.windows(line, i, g.ready().reach, windowed, false), finds)
	}
	for _, i := range hit.own {
		o := &e.own[i]
		finds = o.find(line, r.scan.windows(line, len(e.gitleaks)+i, o.reach, windowed, true), finds)
	}
	if len(finds) == 0 {
		return nil
	}
	var protect []span
	if !windowed {
		protect = fileRefs(line)
	}
	kept := finds[:0]
	for _, f := range finds {
		if f.shaped || windowed && !refCovers(line, f.start, f.end) || !windowed && !within(protect, f.start, f.end) {
			kept = append(kept, f)
		}
	}
	return merge(kept)
}

// find is one secret a rule found: where, what kind, and how specific the
// rule is (lower wins when finds overlap).
type find struct {
	start, end int
	kind       string
	rank       int
	shaped     bool // a vendor's shape: redacted also inside a path (ownRule.shaped)
}

const (
	rankSpecific   = iota // a gitleaks rule for one service's tokens
	rankOwn               // one of freshctx's rules
	rankAssignment        // freshctx's `KEY=value` rule
	rankGeneric           // gitleaks' generic key rule
)

// merge sorts finds and joins overlapping ones; the joined find takes the
// kind of its most specific part.
func merge(fs []find) []find {
	sort.Slice(fs, func(a, b int) bool {
		if fs[a].start != fs[b].start {
			return fs[a].start < fs[b].start
		}
		return fs[a].rank < fs[b].rank
	})
	var out []find
	for _, f := range fs {
		if n := len(out); n > 0 && f.start < out[n-1].end {
			last := &out[n-1]
			if f.rank < last.rank || f.rank == last.rank && f.end-f.start > last.end-last.start {
				last.kind, last.rank = f.kind, f.rank
			}
			last.end = max(last.end, f.end)
			continue
		}
		out = append(out, f)
	}
	return out
}

// replace puts Mark in place of each find, counting each.
func (r *Redactor) replace(line []byte, fs []find) []byte {
	if len(fs) == 0 {
		return line
	}
	out := make([]byte, 0, len(line))
	last := 0
	for _, f := range fs {
		out = append(out, line[last:f.start]...)
		out = append(out, Mark...)
		last = f.end
		r.found(f.kind)
	}
	return append(out, line[last:]...)
}

// pieceWindow is how far back from the end of an unfinished line a piece
// may be cut: a secret is a run of bytes without spaces, far shorter.
const pieceWindow = 4 << 10

// Context is how much of a long line on either side of a piece Piece needs
// to find what it would find on the whole line: more than any rule reaches
// from its keyword to its secret, or any secret is long.
const Context = 1 << 10

// SafeCut says how much of an unfinished line (one too long to wait for
// its newline) can be redacted as a piece of its own: up to and including
// the last space, tab, comma, semicolon or quote in its final 4 KiB, or,
// if that stretch has none, all but the last Context bytes, so that Piece
// sees what follows. A cut never falls inside a private key's header or
// footer, which Line must see whole.
func SafeCut(b []byte) int {
	from := max(0, len(b)-pieceWindow)
	cut := max(0, len(b)-Context)
	if i := bytes.LastIndexAny(b[from:], " \t,;\"'"); i >= 0 {
		cut = from + i + 1
	}
	lo := max(0, cut-80)
	for _, m := range [][]byte{[]byte("-----BEGIN"), []byte("-----END")} {
		i := bytes.LastIndex(b[lo:cut], m)
		if i < 0 {
			continue
		}
		if at := lo + i; at > 0 && !bytes.Contains(b[at+len(m):cut], []byte("-----")) {
			cut = at
		}
	}
	if cut == 0 {
		return len(b)
	}
	return cut
}

// Piece returns piece, the next part of a line too long to wait for, with
// its secrets replaced. before is what came just before it on the line and
// after what follows it so far, as they came, each up to Context bytes: a
// secret whose keyword ends the piece before, or which runs on past either
// end, is found as on the whole line, and its part inside piece replaced.
// Inside a private key block, or where one begins, the piece is Line's.
func (r *Redactor) Piece(before, piece, after []byte) []byte {
	before = before[max(0, len(before)-Context):]
	after = after[:min(len(after), Context)]
	if r.inKey || bytes.Contains(piece, []byte("-----BEGIN")) || len(before)+len(after) == 0 {
		return r.Line(piece)
	}
	joined := make([]byte, 0, len(before)+len(piece)+len(after))
	joined = append(append(append(joined, before...), piece...), after...)
	var fs []find
	escaped := false
	if bytes.IndexByte(joined, 0x1b) >= 0 {
		fs, escaped = r.escapedFinds(joined)
	}
	if !escaped && (built.Load() || mayHold(joined)) {
		fs = r.finds(joined)
	}
	from, to := len(before), len(before)+len(piece)
	kept := fs[:0]
	for _, f := range fs {
		if f.end <= from || f.start >= to {
			continue
		}
		f.start, f.end = max(f.start, from)-from, min(f.end, to)-from
		kept = append(kept, f)
	}
	return r.replace(piece, kept)
}
