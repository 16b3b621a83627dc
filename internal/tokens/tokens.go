// Package tokens counts tokens with a real tokenizer (o200k_base, offline),
// never an estimate from byte counts. The vocabulary takes tens of
// milliseconds to load, so it is loaded on first use; Preload starts that in
// the background while other work goes on. Count is safe for concurrent use.
package tokens

import (
	"bytes"
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

var codec = sync.OnceValue(func() tokenizer.Codec {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		panic("o200k_base tokenizer is built in: " + err.Error())
	}
	return c
})

// Preload loads the vocabulary in the background.
func Preload() { go codec() }

// Count returns the number of o200k_base tokens in s.
func Count(s string) int {
	n, _ := inHalves(s, func(s string) (int, bool) { return countPieces(s), false })
	return n
}

// AtLeast is a lower bound on Count(s) that needs no vocabulary (loading
// it costs a process about 25 ms of CPU). o200k splits text into pieces
// before it encodes each, and every piece is a token at least:
//   - a run of ASCII letters not after an apostrophe (a piece never holds
//     letters of two runs but for a contraction, 's after a word);
//   - a run of digits, a piece for each three of them;
//   - a run of punctuation (printable ASCII that is neither a letter nor a
//     digit) unless it is one mark before a letter, which may open the
//     letters' piece, or starts with a slash after a line break, which
//     may end the piece of the marks before the break. A space may open a
//     run's piece and line breaks end it; they are not counted.
//
// Text holding a byte past ASCII is bounded by 0, since a letter of
// another script may join two runs; text holding a control byte other
// than tab, newline and carriage return counts no punctuation, since it
// may join two runs of it.
func AtLeast(s string) int {
	n, marks := 0, 0
	plain := true    // no control byte but tab, newline, carriage return
	var prev byte    // the class of the byte before: 'a' a letter, '0' a digit, '.' a mark, 0 another
	run := 0         // the length of the run of digits or marks the byte before ends
	slashed := false // the run of marks starts with a slash after a line break
	for i := 0; i < len(s); i++ {
		c := s[i]
		class := byte(0)
		switch {
		case c >= 0x80:
			return 0
		case 'a' <= c|0x20 && c|0x20 <= 'z':
			class = 'a'
		case '0' <= c && c <= '9':
			class = '0'
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case c < 0x20 || c == 0x7f:
			plain = false
			class = '.' // may join marks: never ends their run
		default:
			class = '.'
		}
		if class != prev && prev == '.' && (run > 1 || class != 'a') && !slashed {
			marks++
		}
		if class == '.' && prev != '.' {
			slashed = c == '/' && i > 0 && (s[i-1] == '\n' || s[i-1] == '\r')
		}
		switch {
		case class == 'a' && prev != 'a' && (i == 0 || s[i-1] != '\''):
			n++
		case class == '0' && (prev != '0' || run == 3):
			n++
			if prev == '0' {
				run = 0
			}
		}
		if class == prev {
			run++
		} else {
			run = 1
		}
		prev = class
	}
	if prev == '.' && !slashed {
		marks++
	}
	if plain {
		n += marks
	}
	return n
}

// countPieces counts s in pieces of about countPiece, one after another.
func countPieces(s string) int {
	n := 0
	for len(s) > countPiece {
		cut := cutNear(s, countPiece)
		if cut < 0 {
			break
		}
		n += countWhole(s[:cut])
		s = s[cut:]
	}
	return n + countWhole(s)
}

// countWhole counts s in one call of the tokenizer.
func countWhole(s string) int {
	if s == "" {
		return 0
	}
	n, err := codec().Count(s)
	if err != nil {
		// Count only fails on text it cannot split; fall back to counting
		// the valid UTF-8 form, which is what a model would be sent.
		n, _ = codec().Count(strings.ToValidUTF8(s, "\uFFFD"))
	}
	return n
}

// Counter counts the tokens of a stream of text. The tokenizer reads about
// 7 MB/s, so counting 100 MB exactly would take longer than capturing it:
// past Budget bytes the counter counts one chunk in SampleEvery, and past
// 64 MiB one in eight times as many, and extrapolates the rest from the
// tokens-per-byte ratio it measured; Total says whether the count is exact.
type Counter struct {
	// Budget is how many bytes are counted exactly; 0 means 256 KiB.
	Budget int64
	// SampleEvery: past the budget, one chunk in this many is counted;
	// 0 means 256.
	SampleEvery int

	counted, skipped int64
	tokens           int
	chunks           int
	// buf holds text not yet taken, reused from chunk to chunk: a chunk
	// is made a string only when it is counted.
	buf []byte
	// roughCut says a chunk had to end where the tokenizer may split
	// differently, so a count may be off by a token there.
	roughCut bool
}

const (
	chunkBytes  = 64 << 10
	sparseAfter = 64 << 20
)

// Add counts a piece of text; pieces may split lines anywhere and be of
// any size.
func (c *Counter) Add(s string) { add(c, s) }

// Write counts p as Add does; it never fails.
func (c *Counter) Write(p []byte) (int, error) {
	add(c, p)
	return len(p), nil
}

func add[T string | []byte](c *Counter, p T) {
	for len(p) > 0 {
		n := min(len(p), chunkBytes-len(c.buf))
		c.buf = append(c.buf, p[:n]...)
		p = p[n:]
		if len(c.buf) == chunkBytes {
			c.flushLines()
		}
	}
}

// flushLines takes the buffer up to its last place where a cut leaves the
// count unchanged (cut.go) and keeps the rest for later. A buffer without
// one (64 KiB of white space and slashes) is taken up to its last newline,
// else whole, and the total is no longer exact.
func (c *Counter) flushLines() {
	end := cutNear(c.buf, len(c.buf))
	if end <= 0 {
		c.roughCut = true
		end = bytes.LastIndexByte(c.buf, '\n') + 1
	}
	if end <= 0 {
		end = len(c.buf)
	}
	c.take(c.buf[:end])
	c.buf = c.buf[:copy(c.buf, c.buf[end:])]
}

// take counts a chunk or, past the budget, samples it.
func (c *Counter) take(b []byte) {
	budget, every := c.Budget, c.SampleEvery
	if budget == 0 {
		budget = 256 << 10
	}
	if every == 0 {
		every = 256
	}
	if c.counted+c.skipped >= sparseAfter {
		every *= 8
	}
	if c.counted+c.skipped >= budget {
		c.chunks++
		if c.chunks%every != 0 {
			c.skipped += int64(len(b))
			return
		}
	}
	n, rough := inHalves(b, countSpaced)
	c.tokens += n
	c.counted += int64(len(b))
	c.roughCut = c.roughCut || rough
}

// halvesFrom is the length from which a text is counted in two halves at
// once (a variable so a test can make it small).
var halvesFrom = 16 << 10

// inHalves counts s with count, its two halves at once where a clean cut
// (cutNear) lies between them, and says whether either count was rough.
// The tokenizer reads about 7 MB/s, a counter counts the first 256 KiB of
// every output exactly, and a digest is counted as it is printed: where a
// second core is free, as it mostly is while a few hundred kilobytes of
// output are captured, the wait for a count is halved.
func inHalves[T string | []byte](s T, count func(T) (int, bool)) (int, bool) {
	cut := -1
	if len(s) >= halvesFrom {
		cut = cutNear(s, len(s)/2)
	}
	if cut <= 0 {
		return count(s)
	}
	var n2 int
	var rough2 bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		n2, rough2 = count(s[cut:])
	}()
	n1, rough1 := count(s[:cut])
	<-done
	return n1 + n2, rough1 || rough2
}

// NotCounted stands for a count not made yet: a caller that does not show
// a count may keep this instead and make the count when it is asked for.
const NotCounted = -1

// Held reports whether nothing has been counted yet: all the text added so
// far (less than one 64 KiB chunk) is held, so Total would count it in one
// piece, exactly as counting the same text again from the start would.
func (c *Counter) Held() bool { return c.counted == 0 && c.skipped == 0 }

// Total returns the token count and whether it is exact.
func (c *Counter) Total() (n int, exact bool) {
	if len(c.buf) > 0 {
		c.take(c.buf)
		c.buf = c.buf[:0]
	}
	if c.skipped == 0 {
		return c.tokens, !c.roughCut
	}
	if c.counted == 0 {
		return 0, false
	}
	est := float64(c.tokens) * float64(c.counted+c.skipped) / float64(c.counted)
	return int(est + 0.5), false
}
