package records

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"

	"github.com/freshctx/freshctx/internal/compress"
	"github.com/freshctx/freshctx/internal/facts"
	"github.com/freshctx/freshctx/internal/refs"
	"github.com/freshctx/freshctx/internal/testrace"
	"github.com/freshctx/freshctx/internal/tokens"
)

// TestNoTextOutlivesItsBatch: the texts of a batch's lines are cut from a
// buffer that is poisoned and reused once the batch is given back, so
// everything the analysis keeps longer must be a copy. Each output below
// is written a line at a time (a batch per line), then many lines at a
// time, through outputs that make every part of the analysis keep
// something: the digest's head and the lines it keeps (until it is full,
// and after), the references (paths, Java classes, paths read with the
// bytes before them), a dropped reference, facts, go packages, folders
// make entered, and lines repeated across batches. What is kept must be
// what is kept when no batch is ever reused.
func TestNoTextOutlivesItsBatch(t *testing.T) {
	outputs := []struct {
		name  string
		argv  []string
		lines []string
	}{
		{"go test", []string{"go", "test", "./..."}, goTestLines()},
		{"pytest", []string{"pytest"}, pytestLines()},
		{"generic, full digest", nil, fullDigestLines()},
		{"too many references", nil, manyRefLines()},
	}
	s, _ := newService(t)
	for _, o := range outputs {
		for _, perWrite := range []int{1, 7, 1000} {
			t.Run(fmt.Sprintf("%s/%d lines a write", o.name, perWrite), func(t *testing.T) {
				reuseBatches = false
				want := analyse(t, s, o.argv, writesOf(o.lines, perWrite))
				reuseBatches = true
				got := analyse(t, s, o.argv, writesOf(o.lines, perWrite))
				if got.digest != want.digest {
					t.Errorf("digest differs:\n%s", udiff.Unified("without reuse", "with reuse", want.digest, got.digest))
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("kept with batches reused:\n%+v\nwithout:\n%+v", got, want)
				}
			})
		}
	}
	reuseBatches = true
}

// kept is what an analysis keeps of an output.
type kept struct {
	digest  string
	refs    []refs.Ref
	dropped *refs.Ref
	facts   []facts.Fact
	pkgs    []string
	entered []string
	lines   int64
}

// writesOf joins lines into writes of perWrite lines.
func writesOf(lines []string, perWrite int) [][]byte {
	var out [][]byte
	for i := 0; i < len(lines); i += perWrite {
		out = append(out, []byte(strings.Join(lines[i:min(i+perWrite, len(lines))], "\n")+"\n"))
	}
	return out
}

// analyse writes to a capture's stdout sink, after prepare if any, and
// returns what its analysis kept.
func analyse(t *testing.T, s *Service, argv []string, writes [][]byte, prepare ...func(*capture)) kept {
	t.Helper()
	c, err := s.startCapture(Options{Intent: compress.Summary}, argv)
	if err != nil {
		t.Fatal(err)
	}
	defer c.discard()
	for _, p := range prepare {
		p(c)
	}
	for _, w := range writes {
		c.sinks[Stdout].Write(w)
	}
	if err := c.wait(); err != nil {
		t.Fatal(err)
	}
	a := c.analysis
	return kept{
		digest: compress.Render(a.finish()), refs: a.scan.refs, dropped: a.scan.dropped,
		facts: a.scan.facts.List(), pkgs: a.scan.goBlocks.pkgs, entered: a.scan.entered, lines: a.lines.Load(),
	}
}

func goTestLines() []string {
	var out []string
	for p := range 30 {
		out = append(out, fmt.Sprintf("=== RUN   TestCase%d", p))
		for i := range 20 {
			out = append(out, fmt.Sprintf("    case_test.go:%d: step %d of case %d", 10+i, i, p))
		}
		out = append(out,
			fmt.Sprintf("--- FAIL: TestCase%d (0.01s)", p),
			fmt.Sprintf("    at com.acme.Widget%d.run(Widget%d.java:%d)", p, p, p+1),
			fmt.Sprintf("café/pkg%d/main.go:%d:2: undefined: thing%d", p, p+3, p),
			"repeated line, the same in every batch",
			"repeated line, the same in every batch",
			fmt.Sprintf("make[1]: Entering directory '/src/sub%d'", p%3),
			"FAIL",
			fmt.Sprintf("FAIL\texample.com/mod/pkg%d\t0.02s", p),
			fmt.Sprintf("ok  \texample.com/mod/other%d\t0.01s", p))
	}
	return out
}

func pytestLines() []string {
	out := []string{"============================= test session starts =============================="}
	for p := range 40 {
		out = append(out,
			fmt.Sprintf("___________________________ test_case_%d ___________________________", p),
			"Traceback (most recent call last):",
			fmt.Sprintf(`  File "tests/test_mod%d.py", line %d, in test_case_%d`, p, p+4, p),
			"    assert compute() == 3",
			fmt.Sprintf("AssertionError: case %d", p),
			fmt.Sprintf("tests/test_mod%d.py:%d: AssertionError", p, p+4),
			fmt.Sprintf("FAILED tests/test_mod%d.py::test_case_%d - AssertionError", p, p))
	}
	return out
}

// fullDigestLines fill the digest (5,000 kept lines) and go on with lines
// that name files and facts, which only the scan reads then.
func fullDigestLines() []string {
	var out []string
	for i := range 6000 {
		out = append(out, fmt.Sprintf("error: failure %d at pkg/f%d.go:%d", i, i%50, i))
	}
	for i := range 300 {
		out = append(out, fmt.Sprintf("--- FAIL: TestLate%d (0.00s)", i), fmt.Sprintf("late/file%d.go:%d: undefined: late%d", i, i+1, i))
	}
	return out
}

func manyRefLines() []string {
	var out []string
	for i := range maxRefs + 50 {
		out = append(out, fmt.Sprintf("warning at src/dir%d/file%d.go:%d", i%40, i, i+1))
	}
	return out
}

// TestFullDigestCopiesNoLine: once the digest is full it reads no more
// lines (it is told how many there were, and says so as a digest handed
// each would), and neither the analysis nor the sinks allocate anything
// for each line after that: 6.8 MB of lines past a full digest add less than three
// quarters of their size to what the capture allocates, the tokenizer aside
// (a quarter was measured in most runs, up to a half in some: batches and
// buffers the longer pipeline fills; a copy of each line, for the digest or
// for the batch, adds 125-130%).
func TestFullDigestCopiesNoLine(t *testing.T) {
	full := fullDigestLines()
	lines, after := full, 0
	for i := range 150_000 {
		l := fmt.Sprintf("filler line %d, which names nothing at all", i)
		lines = append(lines, l)
		after += len(l)
	}
	s, _ := newService(t)
	allocated := func() uint64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.TotalAlloc
	}
	measure := func(lines []string) uint64 {
		writes := writesOf(lines, 1000)
		before := allocated()
		got := analyse(t, s, nil, writes, func(c *capture) {
			// The tokenizer allocates several times what it counts: it
			// counts the first chunk, as both captures have it, and no
			// sample after.
			c.sinks[Stdout].count.counter = tokens.Counter{Budget: 1, SampleEvery: 1 << 30}
		})
		if !strings.Contains(got.digest, "later lines not read") {
			t.Fatalf("the digest was not full:\n%s", got.digest[len(got.digest)-200:])
		}
		return allocated() - before
	}
	// Loads the tokenizer and the rules, and makes the prefilters of the
	// expressions the lines try (rx makes one on its 64th use): one-time
	// costs, not the lines'.
	measure(lines)
	// The least of three: how far the sinks run ahead of the goroutines
	// that give their buffers back varies from run to run (a buffer not
	// back in time is a new one, 1.8 MB more in some runs here), where a
	// copy of each line would add its size in every run.
	least := func(lines []string) uint64 {
		m := measure(lines)
		for range 2 {
			m = min(m, measure(lines))
		}
		return m
	}
	alone, more := least(full), least(lines)
	// The lines it was not handed are counted as if they had been.
	head := strings.Join(lines[:100], "\n")
	c := compress.Select(nil, []byte(head)).New(compress.Options{Intent: compress.Summary})
	for _, l := range lines {
		c.Line(l)
	}
	if got, want := analyse(t, s, nil, writesOf(lines, 1000)).digest, compress.Render(c.Finish()); got != want {
		t.Fatalf("the capture's digest differs from one handed every line:\n%s", udiff.Unified("handed every line", "captured", want, got))
	}
	if testrace.Enabled {
		// A race build allocates twenty times as much for the same
		// capture (270 MB against 13.4), and its total moves by a few MB
		// from one capture to the next: more than the bound measures.
		t.Logf("allocations not compared under the race detector (%d against %d)", more, alone)
		return
	}
	if added := int64(more) - int64(alone); added > int64(after)*3/4 {
		t.Fatalf("%d bytes of lines after the digest filled added %d bytes allocated (%d against %d), want at most %d",
			after, added, more, alone, after*3/4)
	}
}
