package records

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/testout"
)

// TestLongLineIsOneLineOfTheDigest: a line too long to wait for (a
// minified bundle on one line) is stored whole and shown in the digest as
// one line, its start and how many bytes follow, however many pieces it
// came in; the scan still sees the start of every piece.
func TestLongLineIsOneLineOfTheDigest(t *testing.T) {
	s, _ := newService(t)
	long := bytes.TrimSuffix(testout.Minified(1<<20), []byte("\n"))
	// a reference well past the first piece and well before the last,
	// repeated so that the start of some piece between holds it
	var mid bytes.Buffer
	for mid.Len() < 200<<10 {
		mid.WriteString("pkg/calc_test.go:1 ")
		mid.Write(long[:1000])
	}
	line := append(append(append([]byte{}, long...), mid.Bytes()...), long...)
	for _, c := range []struct {
		name, after string
	}{
		{"then a line", "\npkg/calc.go:3: after the long line\n"},
		{"at the end without a newline", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := append(append([]byte{}, line...), c.after...)
			rec, err := s.Capture(context.Background(), CaptureRequest{Input: bytes.NewReader(in)})
			if err != nil {
				t.Fatal(err)
			}
			if got := raw(t, s, rec.ID, Stdout); !bytes.Equal(got, in) {
				t.Fatalf("raw output differs: %d bytes, want %d", len(got), len(in))
			}
			notice := fmt.Sprintf(" … [%d more bytes on this line]", len(line)-maxLine)
			if !strings.Contains(rec.Digest, string(line[:100])) || !strings.Contains(rec.Digest, notice) {
				t.Fatalf("digest does not show the line's start and %q:\n%s", notice, rec.Digest[max(0, len(rec.Digest)-600):])
			}
			if n := strings.Count(rec.Digest, "more bytes on this line"); n != 1 {
				t.Fatalf("digest shows the line %d times, want once:\n%.2000s", n, rec.Digest)
			}
			if len(rec.Digest) > 2*maxLine+200 {
				t.Fatalf("digest of %d bytes for one long line and one short", len(rec.Digest))
			}
			if c.after != "" && !strings.Contains(rec.Digest, "pkg/calc.go:3: after the long line") {
				t.Fatalf("the line after the long one is not in the digest:\n%.500s", rec.Digest[len(rec.Digest)-500:])
			}
			if !hasFile(rec, "pkg/calc_test.go") {
				t.Fatalf("a reference past the first piece was not found: %+v", rec.Files)
			}
		})
	}
}

func hasFile(rec *Record, path string) bool {
	for _, f := range rec.Files {
		if f.Path == path {
			return true
		}
	}
	return false
}
