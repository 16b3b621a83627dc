package records

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/facts"
	"github.com/freshctx/freshctx/internal/refs"
)

// TestBatchesGivenBackLoseNoLine: batches of lines go back to the sinks
// once the digest, their last reader, is done with them. With the scan
// slowed so that many batches are in flight, every line still reaches the
// scan and the digest once and unchanged: each failing test's line is in
// the digest and each is a fact. Under -race an early give-back is also a
// data race.
func TestBatchesGivenBackLoseNoLine(t *testing.T) {
	s, _ := newService(t)
	n := 0
	lineRefs = func(line string) []refs.Ref {
		if n++; n%2000 == 0 {
			time.Sleep(2 * time.Millisecond)
		}
		return refs.Line(line)
	}
	t.Cleanup(func() { lineRefs = refs.Line })
	const tests = 900
	var in bytes.Buffer
	for i := range tests {
		for j := range 60 {
			fmt.Fprintf(&in, "filler line %d of %d, nothing to see\n", j, i)
		}
		fmt.Fprintf(&in, "--- FAIL: TestNumber%03d (0.00s)\n", i)
	}
	rec, err := s.Capture(context.Background(), CaptureRequest{Input: bytes.NewReader(in.Bytes()),
		Options: Options{Intent: "errors"}})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range rec.facts {
		if f.Kind == facts.Test {
			seen[f.Value] = true
		}
	}
	for i := range tests {
		name := fmt.Sprintf("TestNumber%03d", i)
		if !strings.Contains(rec.Digest, "--- FAIL: "+name+" ") {
			t.Fatalf("the digest lost %s", name)
		}
		if !seen[name] {
			t.Fatalf("the scan lost %s (%d test facts)", name, len(seen))
		}
	}
	if len(seen) != tests {
		t.Fatalf("%d test facts, want %d", len(seen), tests)
	}
}

// TestDigestTakesTheScansSearch: the digest judges a line by what the
// scan's search for file references found in it, not by a search of its
// own. With the scan's search made to find a file in a line that names
// none, the digest keeps that line as one naming a file.
func TestDigestTakesTheScansSearch(t *testing.T) {
	s, _ := newService(t)
	lineRefs = func(line string) []refs.Ref {
		if strings.Contains(line, "widget") {
			return []refs.Ref{{Path: "widget.txt"}}
		}
		return refs.Line(line)
	}
	t.Cleanup(func() { lineRefs = refs.Line })
	var in bytes.Buffer
	for i := range 200 {
		fmt.Fprintf(&in, "filler line %d, nothing to see\n", i)
		if i == 100 {
			in.WriteString("the widget is ready\n")
		}
	}
	rec, err := s.Capture(context.Background(), CaptureRequest{Input: bytes.NewReader(in.Bytes())})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.Digest, "the widget is ready") {
		t.Errorf("the digest dropped the line the scan found a file in:\n%s", rec.Digest)
	}
	if strings.Contains(rec.Digest, "filler line 150,") {
		t.Errorf("the digest keeps a plain line:\n%s", rec.Digest)
	}
}
