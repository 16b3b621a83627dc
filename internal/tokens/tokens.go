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

// Counter counts a stream of text exactly up to Budget bytes and, past it,
// extrapolates from the tokens-per-byte ratio measured so far: counting 100 MB
// exactly would take tens of seconds. Exact reports which one Total is.
type Counter struct {
	// Budget is how many bytes are counted exactly; 0 means 8 MiB.
	Budget int64

	counted, skipped int64
	tokens           int
	buf              strings.Builder
}

const chunkBytes = 64 << 10

// Add counts a piece of text; pieces may split lines anywhere.
func (c *Counter) Add(s string) {
	budget := c.Budget
	if budget == 0 {
		budget = 8 << 20
	}
	if c.counted+int64(c.buf.Len()) >= budget {
		c.skipped += int64(len(s))
		return
	}
	c.buf.WriteString(s)
	if c.buf.Len() >= chunkBytes {
		c.flushLines()
	}
}

// flushLines counts the buffer up to its last newline, so chunks split where
// the tokenizer never merges across, and keeps the rest for later; a buffer
// without a newline is counted whole once it is 16 chunks long.
func (c *Counter) flushLines() {
	s := c.buf.String()
	i := strings.LastIndexByte(s, '\n')
	if i < 0 {
		if len(s) < 16*chunkBytes {
			return
		}
		i = len(s) - 1
	}
	c.tokens += Count(s[:i+1])
	c.counted += int64(i + 1)
	c.buf.Reset()
	c.buf.WriteString(s[i+1:])
}

func (c *Counter) flush() {
	if c.buf.Len() == 0 {
		return
	}
	c.tokens += Count(c.buf.String())
	c.counted += int64(c.buf.Len())
	c.buf.Reset()
}

// Total returns the token count and whether it is exact.
func (c *Counter) Total() (n int, exact bool) {
	c.flush()
	if c.skipped == 0 {
		return c.tokens, true
	}
	if c.counted == 0 {
		return 0, false
	}
	est := float64(c.tokens) * float64(c.counted+c.skipped) / float64(c.counted)
	return int(est), false
}
