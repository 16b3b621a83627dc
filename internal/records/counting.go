package records

import "github.com/freshctx/freshctx/internal/tokens"

// counting stores a stream's redacted output and counts its tokens, on a
// goroutine of its own. The tokenizer reads about 7 MB/s and every
// output's first 256 KiB is counted exactly (tokens.Counter): on the
// sink's goroutine that held the output's redaction back by about 35 ms
// (256 KiB at 7 MB/s), where a second core was idle; and compressing and
// hashing the output for its blob there made the sink, the one goroutine
// that reads every byte in turn, the slowest step of a long capture.
// Chunks are handed over whole, not copied; the goroutine writes each
// (write), counts it and gives the buffer back, and once the stream ends
// it counts the text its counter still holds, while the digest is
// finished and counted.
type counting struct {
	counter tokens.Counter // the goroutine's until result returns
	// write stores a chunk before it is counted; it runs on the goroutine,
	// and what it writes to is the goroutine's until written returns.
	write      func([]byte)
	chunks     chan []byte
	free       chan []byte
	allWritten chan struct{} // closed once every chunk is written
	done       chan struct{}
	ended      bool
}

// countAhead bounds the chunks waiting to be written and counted: with chunks of about
// storeChunk, the exact count's budget and no more waits in memory.
const countAhead = 6

// keptBuffer is the largest buffer kept for reuse: a chunk holding a long
// line (a minified bundle's, megabytes) is let go once counted, not kept
// for every chunk after it.
const keptBuffer = 2 * storeChunk

// add hands b to the counter and returns an empty buffer to fill next.
func (c *counting) add(b []byte) []byte {
	if c.chunks == nil {
		c.chunks, c.free = make(chan []byte, countAhead), make(chan []byte, countAhead+2)
		c.allWritten, c.done = make(chan struct{}), make(chan struct{})
		go c.run()
	}
	c.chunks <- b
	select {
	case next := <-c.free:
		return next
	default:
		return make([]byte, 0, min(cap(b), keptBuffer))
	}
}

func (c *counting) run() {
	defer close(c.done)
	for b := range c.chunks {
		if c.write != nil {
			c.write(b)
		}
		c.counter.Write(b)
		if cap(b) > keptBuffer {
			continue
		}
		select {
		case c.free <- b[:0]:
		default:
		}
	}
	close(c.allWritten)
	if !c.counter.Held() {
		c.counter.Total() // counts what it holds; a text held whole is left to count later (Held)
	}
}

// end says the stream has ended: no chunk is added after it.
func (c *counting) end() {
	if c.chunks != nil && !c.ended {
		close(c.chunks)
	}
	c.ended = true
}

// written ends the stream and waits for every chunk to be written.
func (c *counting) written() {
	c.end()
	if c.allWritten != nil {
		<-c.allWritten
	}
}

// result ends the stream, waits for every chunk to be counted and returns
// the counter.
func (c *counting) result() *tokens.Counter {
	c.end()
	if c.done != nil {
		<-c.done
	}
	return &c.counter
}
