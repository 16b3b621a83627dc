package compress

import (
	"fmt"
	"strings"
	"testing"
)

// TestPreparedLinesDigestAsLines holds every compressor that takes
// prepared lines to the contract of PreparedLiner: over the corpus, in
// every intent, the digest of lines prepared with what the search for
// references found, or with it not searched, is the digest of the lines.
func TestPreparedLinesDigestAsLines(t *testing.T) {
	prepared := 0
	for _, e := range loadCorpus(t) {
		f := entryFactory(e)
		lines := strings.Split(strings.TrimSuffix(e.Out, "\n"), "\n")
		for _, in := range []Intent{Summary, Errors, Tests, Raw} {
			want := digestOf(f.New(Options{Intent: in, Root: e.Root}), lines, nil)
			for _, seen := range []func(string) Seen{SeenIn, func(string) Seen { return NotSearched }} {
				c := f.New(Options{Intent: in, Root: e.Root})
				pl, ok := c.(PreparedLiner)
				if !ok {
					continue
				}
				prepared++
				if got := digestOf(c, lines, func(l string) { pl.PreparedLine(Prepared{Clean: Clean(l), Refs: seen(Clean(l))}) }); got != want {
					t.Errorf("%s, %s intent, compressor %s: prepared lines digest as\n%s\nwant\n%s", e.Name, in, f.Name, got, want)
				}
			}
		}
	}
	if prepared == 0 {
		t.Fatal("no compressor took prepared lines")
	}
}

// digestOf feeds lines to c, each by feed when it is given, and returns
// the digest's lines, each with its priority (what --max-tokens drops
// first).
func digestOf(c Compressor, lines []string, feed func(string)) string {
	if feed == nil {
		feed = c.Line
	}
	for _, l := range lines {
		feed(l)
	}
	var b strings.Builder
	for _, k := range c.Finish() {
		fmt.Fprintf(&b, "%d %s\n", k.Prio, k.Text)
	}
	return b.String()
}

// TestPreparedRefsDecideTheClass checks that the engine judges a line by
// what its caller's search for references found, when it says, and
// searches itself when it does not: a line that names no file is a Ref when
// the caller's search (a wider one than refs.Line) found one.
func TestPreparedRefsDecideTheClass(t *testing.T) {
	const line = "the widget is ready"
	for _, c := range []struct {
		seen Seen
		want Class
	}{
		{NotSearched, Plain},
		{NoRef, Plain},
		{HasRef, Ref},
	} {
		if got := classify(line, c.seen); got != c.want {
			t.Errorf("classify(%q, %d) = %v, want %v", line, c.seen, got, c.want)
		}
	}
	if got := classify("see main.go:12", NotSearched); got != Ref {
		t.Errorf("an unsearched line naming main.go:12 is %v, want Ref", got)
	}
}

// TestPreparedLineRewrittenIsSearchedAgain checks that what the search of
// a line found is not carried over to the text a compressor rewrites it
// into: go test -json events whose JSON names a file (in a field the
// compressor ignores) and whose output text names none digest as their
// lines do, in every intent (the raw one rewrites them in the engine).
func TestPreparedLineRewrittenIsSearchedAgain(t *testing.T) {
	var lines []string
	for range 30 {
		lines = append(lines, `{"Action":"output","Package":"example.com/p","Test":"TestA","Output":"    still working\n","Note":"see main.go:3"}`)
		lines = append(lines, `{"Action":"output","Package":"example.com/p","Test":"TestA","Output":"    and more\n","Note":"see main.go:4"}`)
	}
	f := Select([]string{"go", "test", "-json", "./..."}, []byte(strings.Join(lines, "\n")))
	if SeenIn(Clean(lines[0])) != HasRef {
		t.Fatalf("the search finds no reference in %s", lines[0])
	}
	for _, in := range []Intent{Summary, Errors, Tests, Raw} {
		want := digestOf(f.New(Options{Intent: in}), lines, nil)
		c := f.New(Options{Intent: in})
		pl, ok := c.(PreparedLiner)
		if !ok {
			t.Fatalf("compressor %s takes no prepared lines", f.Name)
		}
		got := digestOf(c, lines, func(l string) { pl.PreparedLine(Prepared{Clean: Clean(l), Refs: SeenIn(Clean(l))}) })
		if got != want {
			t.Errorf("compressor %s, %s intent: prepared lines digest as\n%s\nwant\n%s", f.Name, in, got, want)
		}
	}
}
