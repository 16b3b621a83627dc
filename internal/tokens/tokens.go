// Package tokens counts tokens with a real tokenizer (o200k_base, offline),
// never an estimate from byte counts. The vocabulary takes tens of
// milliseconds to load, so it is loaded on first use; Preload starts that in
// the background while other work goes on. Count is safe for concurrent use.
package tokens

import (
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
	buf              strings.Builder
}

const (
	chunkBytes  = 64 << 10
	sparseAfter = 64 << 20
)

// Add counts a piece of text; pieces may split lines anywhere and be of
// any size.
func (c *Counter) Add(s string) {
	for len(s) > 0 {
		room := chunkBytes - c.buf.Len()
		if len(s) < room {
			c.buf.WriteString(s)
			return
		}
		c.buf.WriteString(s[:room])
		s = s[room:]
		c.flushLines()
	}
}

// flushLines takes the buffer up to its last newline, so chunks split where
// the tokenizer never merges across, and keeps the rest for later; a buffer
// without a newline is taken whole.
func (c *Counter) flushLines() {
	b := c.buf.String()
	i := strings.LastIndexByte(b, '\n')
	if i < 0 {
		i = len(b) - 1
	}
	c.take(b[:i+1])
	c.buf.Reset()
	c.buf.WriteString(b[i+1:])
}

// take counts a chunk or, past the budget, samples it.
func (c *Counter) take(s string) {
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
			c.skipped += int64(len(s))
			return
		}
	}
	c.tokens += Count(s)
	c.counted += int64(len(s))
}

// Total returns the token count and whether it is exact.
func (c *Counter) Total() (n int, exact bool) {
	if c.buf.Len() > 0 {
		c.take(c.buf.String())
		c.buf.Reset()
	}
	if c.skipped == 0 {
		return c.tokens, true
	}
	if c.counted == 0 {
		return 0, false
	}
	est := float64(c.tokens) * float64(c.counted+c.skipped) / float64(c.counted)
	return int(est + 0.5), false
}
