package tokens

// The tokenizer's expression engine copies all of its input into runes,
// four bytes for every byte: a 16 MB digest took 62 MB to count. Long text
// is therefore counted in pieces, cut where the count of the pieces adds up
// to the count of the whole.
//
// o200k splits text into pieces with an expression before it encodes each
// piece on its own, so a cut between two of its pieces changes nothing. A
// newline followed by a visible ASCII character other than '/' is always
// such a place: the alternatives that can hold a newline (a run of white
// space, a run of white space ending in newlines, a punctuation run trailed
// by newlines and slashes) end before such a character, and none that
// starts at it looks back. TestCountInPiecesIsCountWhole checks it against
// the whole count; a text with no such place is counted whole.

// countPiece is how much text one call of the tokenizer takes at most,
// where the text allows a cut (a variable so a test can make it small).
var countPiece = 64 << 10

// cutNear returns a place to cut s near at, after a newline that a visible
// ASCII character other than '/' follows: the last one at or before at,
// else the first after it, else -1.
func cutNear[T string | []byte](s T, at int) int {
	at = min(at, len(s)-1)
	for i := at; i > 0; i-- {
		if s[i-1] == '\n' && cuttable(s[i]) {
			return i
		}
	}
	for i := at + 1; i < len(s); i++ {
		if s[i-1] == '\n' && cuttable(s[i]) {
			return i
		}
	}
	return -1
}

// cuttable reports a byte before which, after a newline, text may be cut.
func cuttable(c byte) bool { return '!' <= c && c <= '~' && c != '/' }

// longSpace bounds the run of white space the tokenizer is given at once.
// o200k makes a run of spaces and newlines one piece, and some such pieces
// take time quadratic in their length to encode: 20 KB of " \n" took 0.27
// s, 40 KB a second, and 300 KB of such lines eleven seconds to capture
// (runs of longer lines of spaces were fast).
const longSpace = 2 << 10

// countSpaced counts b, cutting every run of white space at a newline once
// it is longSpace long; rough says it cut one, so the count may be off by a
// few tokens for each cut.
func countSpaced(b []byte) (n int, rough bool) {
	start, run := 0, 0
	for i, c := range b {
		if !isSpace(c) {
			run = 0
			continue
		}
		if run++; run >= longSpace && c == '\n' {
			n += Count(string(b[start : i+1]))
			start, run, rough = i+1, 0, true
		}
	}
	return n + Count(string(b[start:])), rough
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
