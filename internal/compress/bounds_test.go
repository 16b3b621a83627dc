package compress

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// eachFactoryAndIntent runs test for each factory in every intent, each
// as a subtest.
func eachFactoryAndIntent(t *testing.T, factories []Factory, test func(t *testing.T, f Factory, in Intent)) {
	for _, f := range factories {
		for _, in := range []Intent{Summary, Errors, Raw} {
			t.Run(f.Name+"/"+string(in), func(t *testing.T) { test(t, f, in) })
		}
	}
}

// keptLine is the i-th of a run of distinct lines every compressor keeps.
func keptLine(i int) string { return fmt.Sprintf("error: failure %d at pkg/f%d.go:%d", i, i, i) }

// hostileLine is a line of just under 4 KB (the longest the analysis
// passes) that every compressor must keep: failures and file:line
// references, each distinct.
func hostileLine(i int) string {
	var b strings.Builder
	for j := 0; b.Len() < 4000; j++ {
		fmt.Fprintf(&b, "--- FAIL: TestThing%d_%d (0.00s) pkg/file%d.go:%d: undefined: Foo%d ", i, j, j, i, j)
	}
	return b.String()[:4000]
}

// TestDigestIsBoundedInBytes feeds every kind of compressor 8 MB of long
// lines that all deserve keeping: the digest stops at its byte bound and
// says how many kept lines it dropped, where it had grown to 16 MB.
func TestDigestIsBoundedInBytes(t *testing.T) {
	eachFactoryAndIntent(t, []Factory{Generic, Go, Python}, func(t *testing.T, f Factory, in Intent) {
		c := f.New(Options{Intent: in})
		for i := range 2000 {
			c.Line(hostileLine(i))
		}
		out := c.Finish()
		size := 0
		for _, k := range out {
			size += len(k.Text)
		}
		if size > maxKeptBytes+4096 {
			t.Fatalf("digest of %d lines holds %d bytes, bound %d", len(out), size, maxKeptBytes)
		}
		last := out[len(out)-1].Text
		if !strings.Contains(last, "more kept line") {
			t.Fatalf("the digest does not say it dropped lines; it ends %.200q", last)
		}
	})
}

// TestHeldLinesAreBoundedInBytes checks what the go test and Python
// compressors hold before they know whether a test failed or where a
// traceback ends stays within its byte bound.
func TestHeldLinesAreBoundedInBytes(t *testing.T) {
	g := newGoTests(NewEngine(Summary, Rules{}).(*engine), goJSON)
	g.Line("=== RUN   TestLong")
	for i := range 3000 {
		g.Line(hostileLine(i)[10:]) // not a result line: held until the result
		if g.heldBytes > maxHeldBytes {
			t.Fatalf("go test held %d bytes after %d lines, bound %d", g.heldBytes, i+1, maxHeldBytes)
		}
	}
	if g.heldBytes < maxHeldBytes-4096 {
		t.Fatalf("go test held only %d bytes: the bound was not what stopped it", g.heldBytes)
	}
	p := newPyTraces(NewEngine(Summary, Rules{}).(*engine))
	p.Line("Traceback (most recent call last):")
	for i := range 1000 {
		p.Line("  " + hostileLine(i))
		if p.held > maxTraceBytes {
			t.Fatalf("Python held %d bytes of a traceback after %d lines, bound %d", p.held, i+1, maxTraceBytes)
		}
	}
}

// TestFullDigestReadsNoMore: once the digest holds all it can keep, later
// lines are counted, not judged, and the digest says so; what it kept is
// what it kept without them. Compressors that collapse blocks can make
// room, so they read on.
func TestFullDigestReadsNoMore(t *testing.T) {
	const late = 300
	eachFactoryAndIntent(t, []Factory{Generic, Go}, func(t *testing.T, f Factory, in Intent) {
		digest := func(extra int) []Kept {
			c := f.New(Options{Intent: in})
			for i := range maxKept + 500 {
				c.Line(keptLine(i))
			}
			for i := range extra {
				c.Line(fmt.Sprintf("panic: late failure %d at pkg/late.go:%d", i, i))
			}
			return c.Finish()
		}
		alone, more := digest(0), digest(late)
		if len(alone) != len(more) {
			t.Fatalf("%d lines kept, %d with later lines", len(alone), len(more))
		}
		for i := range len(alone) - 1 {
			if alone[i] != more[i] {
				t.Fatalf("line %d: %q, with later lines %q", i, alone[i].Text, more[i].Text)
			}
		}
		if a, m := unreadIn(alone[len(alone)-1].Text), unreadIn(more[len(more)-1].Text); a < 1 || m != a+late {
			t.Fatalf("the digest ends %q, and without the later lines %q: want %d more lines not read",
				more[len(more)-1].Text, alone[len(alone)-1].Text, late)
		}
	})
	for _, f := range []Factory{Python, JS} {
		c := f.New(Options{Intent: Summary})
		for i := range maxKept + 500 {
			c.Line(keptLine(i))
		}
		out := c.Finish()
		if last := out[len(out)-1].Text; unreadIn(last) >= 0 || !strings.Contains(last, "more kept lines dropped") {
			t.Fatalf("%s, which collapses blocks, ends %q: want it to read on to the end", f.Name, last)
		}
	}
}

// unreadIn is the count of lines a full digest says it did not read, or -1.
func unreadIn(marker string) int {
	m := regexp.MustCompile(`(\d+) later lines? not read`).FindStringSubmatch(marker)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func TestCappedMarker(t *testing.T) {
	for _, c := range []struct {
		dropped, unread int
		want            string
	}{
		{800, 0, "… [800 more kept lines dropped: the digest's limit of 5000 lines or 1 MiB; see the raw output]"},
		{1, 3412524, "… [1 more kept line dropped, 3412524 later lines not read: the digest's limit of 5000 lines or 1 MiB; see the raw output]"},
		{0, 1, "… [1 later line not read: the digest's limit of 5000 lines or 1 MiB; see the raw output]"},
	} {
		if got := cappedMarker(c.dropped, c.unread); got != c.want {
			t.Errorf("cappedMarker(%d, %d) = %q, want %q", c.dropped, c.unread, got, c.want)
		}
	}
}

// TestSatedReadsNoLine: a compressor that says it is sated is not sated
// at the start, becomes so once its digest is full, and from then on reads
// no line it is given, so its caller may reuse the line's memory at once:
// lines given to it from a buffer overwritten after each call, or
// counted by Skip, leave the same digest as the same lines given as
// strings of their own. Python's and JS's compressors, which collapse
// blocks, are never sated.
func TestSatedReadsNoLine(t *testing.T) {
	const late = 300
	eachFactoryAndIntent(t, []Factory{Generic, Go}, func(t *testing.T, f Factory, in Intent) {
		digest := func(reuse bool) []Kept {
			c := f.New(Options{Intent: in})
			s, ok := c.(Sated)
			if !ok || s.Sated() {
				t.Fatalf("%T: sated at the start, or cannot say", c)
			}
			for i := 0; !s.Sated(); i++ {
				if i > maxKept+500 {
					t.Fatalf("not sated after %d kept lines", i)
				}
				c.Line(keptLine(i))
			}
			buf := make([]byte, 0, 64)
			for i := range late {
				line := fmt.Sprintf("panic: late failure %d at pkg/late.go:%d", i, i)
				if !reuse {
					c.Line(line)
					continue
				}
				if i%3 == 0 {
					s.Skip(1) // as a line given
					continue
				}
				buf = append(buf[:0], line...)
				c.Line(unsafe.String(&buf[0], len(buf)))
				for j := range buf {
					buf[j] = '#'
				}
			}
			return c.Finish()
		}
		if own, reused := digest(false), digest(true); !slices.Equal(own, reused) {
			t.Fatalf("a sated digest changed with the memory of lines given to it:\n%v\nwant\n%v", reused, own)
		}
	})
	for _, f := range []Factory{Python, JS} {
		c := f.New(Options{Intent: Summary})
		for i := range maxKept + 500 {
			c.Line(keptLine(i))
		}
		if s, ok := c.(Sated); ok && s.Sated() {
			t.Fatalf("%s, which collapses blocks, says it is sated", f.Name)
		}
	}
}
