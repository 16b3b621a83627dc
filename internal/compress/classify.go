package compress

import (
	"github.com/freshctx/freshctx/internal/rx"
	"strings"
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

// classify says what a cleaned line carries; seen is what a search of it
// for file references found, if it was searched.
func classify(line string, seen Seen) Class {
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
	w := scanWords(t)
	if (w.err || w.class || errorMark(t)) && !w.none {
		return Error
	}
	if w.warn {
		return Warning
	}
	if seen == NotSearched {
		seen = SeenIn(line)
	}
	if seen == HasRef {
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

// at reports whether the word line[i:j], in any case, is one of the
// list's, or starts one of its phrases.
func (l *wordList) at(line string, i, j int) bool {
	c := rx.Lower[line[i]]
	if !l.first[c] || j-i >= len(l.byLen) {
		return false
	}
	for _, w := range l.byLen[j-i] {
		if w.word[0] == c && foldEqual(line[i:j], w.word) && (w.then == "" || followedBy(line, j, w.then)) {
			return true
		}
	}
	return false
}

// lineWords is what the words of a line say: an error word, a warning
// word, a phrase saying there were no errors, a word that names an error
// or exception class (exceptionName).
type lineWords struct{ err, warn, none, class bool }

// scanWords reads a line's words once for all four, the lists' words in
// any case (TestWordListsAreTheExpressions holds it to the expressions they
// stand for, TestClassNamesAreExceptionName to exceptionName). It compares
// each candidate word folded where it lies: lowercasing a copy of every
// line was a third of the scan.
func scanWords(line string) (w lineWords) {
	for i, j := nextWord(line, 0); i < len(line); i, j = nextWord(line, j) {
		w.class = w.class || className(line[i:j])
		if n := j - i; n >= len(listedAt) || !listedAt[n][rx.Lower[line[i]]] {
			continue // most words of a line: no list has a word of its length starting so
		}
		w.err = w.err || errorWords.at(line, i, j)
		w.warn = w.warn || warningWords.at(line, i, j)
		w.none = w.none || noErrorAt(line, i, j)
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
// the word line[i:j]: "0 errors", "no error", "0 failed", "0 failures",
// "error-free" (or "error_free", "errorfree", "error free"), "without
// errors", as whole words in any case.
func noErrorAt(line string, i, j int) bool {
	var next []string
	switch word := line[i:j]; {
	case isWord(word, "errorfree"), isWord(word, "error_free"):
		return true
	case word == "0":
		next = zeroNext
	case isWord(word, "no"), isWord(word, "without"):
		next = noNext
	case isWord(word, "error"):
		next = errorNext
	}
	for _, n := range next {
		if followedBy(line, j, n) {
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
// len(s), len(s) when there is none.
func nextWord(s string, from int) (start, end int) {
	for from < len(s) && !wordByte[s[from]] {
		from++
	}
	end = from
	for end < len(s) && wordByte[s[end]] {
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

// followedBy reports whether s[at:] starts with lower, in any case, and a
// word ends there.
func followedBy(s string, at int, lower string) bool {
	k := at + len(lower)
	return k <= len(s) && foldEqual(s[at:k], lower) && (k == len(s) || !wordByte[s[k]])
}

// isWord reports whether word is lower in any case.
func isWord(word, lower string) bool {
	return len(word) == len(lower) && foldEqual(word, lower)
}

// foldEqual reports whether s, its ASCII letters lowercased, is lower; s
// is at least as long as lower.
func foldEqual(s, lower string) bool {
	for i := range len(lower) {
		if rx.Lower[s[i]] != lower[i] {
			return false
		}
	}
	return true
}

// errorMark reports the marks that make a trimmed line an error besides
// words: "E " (pytest's error lines), a cross anywhere, or a line that
// starts with a multiplication sign.
func errorMark(t string) bool {
	if len(t) > 1 && t[0] == 'E' && isSpace(t[1]) {
		return true
	}
	// ✗, ✖ and ✕ are E2 9C xx in UTF-8 and × is C3 97: a line with no E2
	// byte that does not start with C3 holds none of them.
	if len(t) == 0 || t[0] != 0xC3 && strings.IndexByte(t, 0xE2) < 0 {
		return false
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

// className reports whether a word names an error or exception class as
// exceptionName reads one: a capital letter, then more, then "Error" or
// "Exception".
func className(word string) bool {
	if len(word) < len("XError") || word[0] < 'A' || word[0] > 'Z' {
		return false
	}
	switch word[len(word)-1] {
	case 'r':
		return strings.HasSuffix(word, "Error")
	case 'n':
		return len(word) > len("Exception") && strings.HasSuffix(word, "Exception")
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
