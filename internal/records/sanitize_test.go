package records

import (
	"context"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/termsafe"
)

// TestSanitize: binary lines are summarised, invalid UTF-8 replaced, and a
// line is said to be safe exactly when termsafe would leave it as it is,
// since the scan then cleans it by trimming its trailing blanks alone.
func TestSanitize(t *testing.T) {
	for _, c := range []struct {
		in, want string
		safe     bool
	}{
		{"\tx := a.b(c) // ok  ", "\tx := a.b(c) // ok  ", true},
		{"naïve café ✓", "naïve café ✓", true},
		{"", "", true},
		{"bin\x00ary", "[7 bytes of binary output]", false},
		{"bad \xff byte", "bad \uFFFD byte", false},
		{"\x1b[31mred\x1b[0m", "\x1b[31mred\x1b[0m", false},
		{"10%\r100%", "10%\r100%", false},
		{"bidi \u202e override", "bidi \u202e override", false},
		{"c1 \u009b control", "c1 \u009b control", false},
	} {
		got, safe := sanitize(c.in)
		if got != c.want || safe != c.safe {
			t.Errorf("sanitize(%q) = %q, %v; want %q, %v", c.in, got, safe, c.want, c.safe)
		}
		if safe && termsafe.String(got) != got {
			t.Errorf("sanitize(%q) says safe, but termsafe changes it", c.in)
		}
	}
}

// TestCaptureCleansWhatIsNotSafe: lines that color their words or redraw
// themselves with carriage returns reach the digest, and the scan for
// references, as a terminal shows them, and plain lines as they are.
func TestCaptureCleansWhatIsNotSafe(t *testing.T) {
	s, _ := newService(t)
	in := "building\n\x1b[31merror\x1b[0m: boom at pkg/calc.go:3\n10%\r50%\rwarning: slow\n\tplain text  \n"
	rec, err := s.Capture(context.Background(), CaptureRequest{Input: strings.NewReader(in), Options: Options{Intent: "raw"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"error: boom at pkg/calc.go:3", "warning: slow", "\tplain text"} {
		if !strings.Contains(rec.Digest, want) {
			t.Errorf("the digest lacks %q:\n%q", want, rec.Digest)
		}
	}
	if strings.ContainsAny(rec.Digest, "\x1b\r") || strings.Contains(rec.Digest, "50%") {
		t.Errorf("the digest keeps what a terminal does not show:\n%q", rec.Digest)
	}
	if len(rec.Files) != 1 || rec.Files[0].Path != "pkg/calc.go" {
		t.Errorf("files = %+v, want pkg/calc.go", rec.Files)
	}
}
