package compress

import (
	"github.com/freshctx/freshctx/internal/rx"
	"strings"

	"github.com/freshctx/freshctx/internal/refs"
)

// Class is what a line says.
type Class int

// Line classes, from no opinion to most important.
const (
	// Auto is a Rules.Judge saying "classify it the generic way".
	Auto Class = iota
	// Noise is never kept, not even as context (progress, passing tests).
	Noise
	// Detail is kept when the output is short enough to keep whole and is
	// noise otherwise: frames of libraries, the code under them.
	Detail
	// Marker stands for lines a compressor left out on purpose.
	Marker
	Plain
	Warning
	Ref
	SummaryLine
	Error
)

var (
	summaryLine = rx.MustCompile(`(?i)^(ok\s+\S+\s+(\(cached\)|[\d.]+m?s\b|\[no test files\])|PASS$|FAIL$|FAIL\s+\S+|---\s*(PASS|FAIL)|=+ .*(passed|failed|error).* =+$|test result:|tests?:\s+\d+|Tests run:|Ran \d+ tests?|BUILD (SUCCESS|FAILURE)|\d+ (passed|failed|passing|failing|tests?|examples?|problems?|errors?|warnings?)\b|Finished|Done in|Total:)`)
)

// The words that make a line an error or a warning, whole words in any
// case; a word in phrases is followed by the phrase's next word.
var (
	errorWords = newWordList([]string{"error", "errors", "fail", "failed", "failure", "failures", "failing", "panic",
		"panicked", "fatal", "exception", "traceback", "assertion", "cannot", "denied", "aborted"},
		map[string]string{"segmentation": "fault", "undefined": "reference", "could": "not", "not": "found"})
	warningWords = newWordList([]string{"warning", "warn", "deprecated"}, nil)
)

// classify says what a cleaned line carries. scratch is reused between
// calls to hold the lowercased line.
func classify(line string, scratch *[]byte) Class {
	t := strings.TrimSpace(line)
	if t == "" {
		return Plain
	}
	if chatter.MatchString(t) {
		return Noise
	}
	if summaryLine.MatchString(t) { // anchored: only tried at the start
		return SummaryLine
	}
	w := scanWords(toLower(t, scratch))
	if (w.err || errorMark(t) || exceptionName(t)) && !w.none {
		return Error
	}
	if w.warn {
		return Warning
	}
	if len(refs.Line(t)) > 0 {
		return Ref
	}
	return Plain
}

// wordList finds whole words (runs of ASCII letters, digits and '_', as
// regexp's \b sees them) in a lowercased line.
type wordList struct {
	// byLen holds the words, and the first words of the phrases with what
	// must follow them, by length: a word of the line is compared with the
	// few of its length and first byte, with no hashing (a map's lookup
	// was a third of the word scan of a capture of Go source).
	byLen [][]listWord
	// Most words of a line are turned away by their first byte.
	first [256]bool
}

// listWord is a word of a list, or the first word of a phrase and then
// " " and the word after it.
type listWord struct{ word, then string }

func newWordList(words []string, phrases map[string]string) *wordList {
	l := &wordList{}
	add := func(w listWord) {
		l.first[w.word[0]] = true
		for len(l.byLen) <= len(w.word) {
			l.byLen = append(l.byLen, nil)
		}
		l.byLen[len(w.word)] = append(l.byLen[len(w.word)], w)
	}
	for _, w := range words {
		add(listWord{word: w})
	}
	for w, next := range phrases {
		add(listWord{word: w, then: " " + next})
	}
	return l
}

// at reports whether the word lower[i:j] is one of the list's, or starts
// one of its phrases.
func (l *wordList) at(lower []byte, i, j int) bool {
	if !l.first[lower[i]] || j-i >= len(l.byLen) {
		return false
	}
	for _, w := range l.byLen[j-i] {
		if w.word[0] == lower[i] && string(lower[i:j]) == w.word && (w.then == "" || followedBy(lower, j, w.then)) {
			return true
		}
	}
	return false
}

// lineWords is what the words of a line say: an error word, a warning
// word, a phrase saying there were no errors.
type lineWords struct{ err, warn, none bool }

// scanWords reads a lowercased line's words once for all three
// (TestWordListsAreTheExpressions holds it to the expressions they stand
// for).
func scanWords(lower []byte) (w lineWords) {
	for i, j := nextWord(lower, 0); i < len(lower); i, j = nextWord(lower, j) {
		if n := j - i; n >= len(listedAt) || !listedAt[n][lower[i]] {
			continue // most words of a line: no list has a word of its length starting so
		}
		w.err = w.err || errorWords.at(lower, i, j)
		w.warn = w.warn || warningWords.at(lower, i, j)
		w.none = w.none || noErrorAt(lower, i, j)
	}
	return w
}

// listedAt[n][c] says a word of the lists, or one noErrorAt starts from
// (noErrorWords), is n bytes long and starts with c.
var listedAt = func() (t [16][256]bool) {
	for _, l := range []*wordList{errorWords, warningWords} {
		for n, ws := range l.byLen {
			for _, w := range ws {
				t[n][w.word[0]] = true
			}
		}
	}
	for _, w := range noErrorWords {
		t[len(w)][w[0]] = true
	}
	return t
}()

// noErrorWords are the words noErrorAt starts from.
var noErrorWords = []string{"errorfree", "error_free", "0", "no", "without", "error"}

// noErrorAt reports whether a phrase saying there were no errors starts at
// the word lower[i:j]: "0 errors", "no error", "0 failed", "0 failures",
// "error-free" (or "error_free", "errorfree", "error free"), "without
// errors", as whole words.
func noErrorAt(lower []byte, i, j int) bool {
	var next []string
	switch string(lower[i:j]) {
	case "errorfree", "error_free":
		return true
	case "0":
		next = zeroNext
	case "no", "without":
		next = noNext
	case "error":
		next = errorNext
	}
	for _, n := range next {
		if followedBy(lower, j, n) {
			return true
		}
	}
	return false
}

var (
	zeroNext  = []string{" error", " errors", " failed", " failure", " failures"}
	noNext    = []string{" error", " errors"}
	errorNext = []string{"-free", " free"}
)

// nextWord returns the next run of word bytes at or after from, or
// len(b), len(b) when there is none.
func nextWord(b []byte, from int) (start, end int) {
	for from < len(b) && !wordByte[b[from]] {
		from++
	}
	end = from
	for end < len(b) && wordByte[b[end]] {
		end++
	}
	return from, end
}

// wordByte is isWordByte as a table.
var wordByte = func() (t [256]bool) {
	for c := range t {
		t[c] = rx.IsWordByte(byte(c))
	}
	return t
}()

// followedBy reports whether b[at:] starts with s and a word ends there.
func followedBy(b []byte, at int, s string) bool {
	k := at + len(s)
	return k <= len(b) && string(b[at:k]) == s && (k == len(b) || !rx.IsWordByte(b[k]))
}

// errorMark reports the marks that make a trimmed line an error besides
// words: "E " (pytest's error lines), a cross anywhere, or a line that
// starts with a multiplication sign.
func errorMark(t string) bool {
	if len(t) > 1 && t[0] == 'E' && isSpace(t[1]) {
		return true
	}
	if strings.Contains(t, "✗") || strings.Contains(t, "✖") {
		return true
	}
	for _, x := range []string{"×", "✕"} {
		if rest, ok := strings.CutPrefix(t, x); ok && rest != "" && isSpace(rest[0]) {
			return true
		}
	}
	return false
}

// exceptionName reports a word that names an error or exception class,
// as the line that ends a stack trace does: a capitalised word ending in
// "Error" or "Exception" ("TypeError", "json.decoder.JSONDecodeError",
// "java.lang.NullPointerException"), which the word lists miss since the
// word is not "error" alone. A method name ("handleError") is not one.
func exceptionName(t string) bool {
	return rx.ClassName(t, "Error") || rx.ClassName(t, "Exception")
}

// isSpace is regexp's \s.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// toLower lowercases ASCII letters into scratch: the keywords are ASCII,
// and this neither allocates per line nor consults Unicode tables.
func toLower(s string, scratch *[]byte) []byte {
	b := append((*scratch)[:0], s...)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	*scratch = b
	return b
}
