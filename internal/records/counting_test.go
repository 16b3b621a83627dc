package records

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/tokens"
	"pgregory.net/rapid"
)

// TestCountingCountsAsTheCounter: chunks handed to the counting goroutine,
// in buffers the sink then fills again, are counted as one counter fed the
// same bytes in the same order counts them, exactness included.
func TestCountingCountsAsTheCounter(t *testing.T) {
	words := []string{"func", " ", "\n", "\t", "x := 1", "日本", "  \n", "Error:", "0123456789", strings.Repeat("ab", 40)}
	rapid.Check(t, func(t *rapid.T) {
		var c counting
		var want tokens.Counter
		buf := []byte(nil)
		for range rapid.IntRange(0, 12).Draw(t, "chunks") {
			n := rapid.IntRange(0, 20_000).Draw(t, "words")
			for i := range n {
				buf = append(buf, words[(i*7+n)%len(words)]...)
			}
			want.Write(buf)
			buf = c.add(buf)
			if len(buf) != 0 {
				t.Fatalf("add returned a buffer holding %d bytes", len(buf))
			}
			buf = append(buf, "reused"...) // the sink fills it while the chunk is counted
			buf = buf[:0]
		}
		got := c.result()
		if got != c.result() {
			t.Fatal("result is not the same counter twice")
		}
		gn, gExact := got.Total()
		wn, wExact := want.Total()
		if gn != wn || gExact != wExact || got.Held() != want.Held() {
			t.Fatalf("counted %d (exact %v, held %v), one counter counts %d (exact %v, held %v)",
				gn, gExact, got.Held(), wn, wExact, want.Held())
		}
	})
}

func TestCountingNothingHoldsNothing(t *testing.T) {
	var c counting
	if n, exact := c.result().Total(); n != 0 || !exact || !c.result().Held() {
		t.Fatalf("no text: %d tokens, exact %v, held %v", n, exact, c.result().Held())
	}
}

// TestCountingKeepsNoLargeBuffer: a chunk holding a long line is counted
// and let go, not kept for reuse; one of the usual size is kept, handed
// back by add or waiting in the pool.
func TestCountingKeepsNoLargeBuffer(t *testing.T) {
	var c counting
	c.add(make([]byte, 4*keptBuffer))
	usual := make([]byte, storeChunk)
	next := c.add(usual)
	c.result()
	kept := cap(next) > 0 && &next[:1][0] == &usual[0]
	for len(c.free) > 0 {
		b := <-c.free
		if cap(b) > keptBuffer {
			t.Fatalf("a buffer of %d bytes was kept for reuse", cap(b))
		}
		kept = kept || &b[:1][0] == &usual[0]
	}
	if !kept {
		t.Fatal("the buffer of the usual size was not kept for reuse")
	}
}

// TestCountingWritesEveryChunkFirst: the counting goroutine writes every
// chunk, in order and before the buffer goes back to be filled again, and
// written returns only once the last is written. Under -race a write after
// written is also a data race.
func TestCountingWritesEveryChunkFirst(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var stored, want []byte
		c := counting{write: func(b []byte) { stored = append(stored, b...) }}
		buf := []byte(nil)
		for i := range rapid.IntRange(0, 12).Draw(t, "chunks") {
			buf = append(buf, strings.Repeat(string(rune('a'+i%26)), rapid.IntRange(1, storeChunk/4).Draw(t, "size"))...)
			want = append(want, buf...)
			buf = c.add(buf)
			buf = append(buf, "overwritten"...) // the sink fills the buffer it got back at once
			buf = buf[:0]
		}
		c.written()
		if string(stored) != string(want) {
			t.Fatalf("wrote %d bytes, want the %d added, in order", len(stored), len(want))
		}
	})
}

// TestWrittenAllWaitsForEveryStream: a failed write on stdout is reported
// only once stderr's writes have ended too, since the caller then discards
// both blobs.
func TestWrittenAllWaitsForEveryStream(t *testing.T) {
	stdout, stderr := &sink{stream: Stdout}, &sink{stream: Stderr}
	stdout.count.write = func([]byte) { stdout.err = errors.New("disk full") }
	var last atomic.Bool
	stderr.count.write = func(b []byte) {
		time.Sleep(5 * time.Millisecond)
		last.Store(b[0] == 'z')
	}
	stdout.count.add([]byte("out"))
	for _, c := range "abcz" {
		stderr.count.add([]byte{byte(c)})
	}
	err := writtenAll([]*sink{stdout, stderr})
	if err == nil || !strings.Contains(err.Error(), "store stdout: disk full") {
		t.Fatalf("err = %v, want stdout's failure", err)
	}
	if !last.Load() {
		t.Fatal("writtenAll returned before stderr's last chunk was written")
	}
}
