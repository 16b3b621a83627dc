package testout

import (
	"bytes"
	"encoding/base64"
	"testing"
)

func TestBase64(t *testing.T) {
	for _, n := range []int{0, 1, 77, 1 << 16} {
		got := Base64(n)
		if len(got) != n {
			t.Fatalf("Base64(%d) is %d bytes", n, len(got))
		}
		lines := bytes.Split(bytes.TrimSuffix(got, []byte("\n")), []byte("\n"))
		for i, l := range lines[:max(len(lines)-1, 0)] { // the last may be cut short
			if len(l) != 76 {
				t.Fatalf("Base64(%d): line %d is %d bytes, want 76", n, i, len(l))
			}
			if _, err := base64.StdEncoding.DecodeString(string(l)); err != nil {
				t.Fatalf("Base64(%d): line %d is not base64: %v", n, i, err)
			}
		}
	}
	if !bytes.Equal(Base64(1000), Base64(1000)) {
		t.Fatal("Base64 is not deterministic")
	}
}

func TestMinified(t *testing.T) {
	for _, n := range []int{1, 100, 1 << 20} {
		got := Minified(n)
		if len(got) != n || got[n-1] != '\n' || bytes.Count(got, []byte("\n")) != 1 {
			t.Fatalf("Minified(%d): %d bytes, %d newlines; want one line of %d bytes", n, len(got), bytes.Count(got, []byte("\n")), n)
		}
	}
	big := Minified(1 << 20)
	for _, w := range []string{"e.key=", "token:", "password"} {
		if !bytes.Contains(big, []byte(w)) {
			t.Errorf("Minified holds no %q", w)
		}
	}
	if !bytes.Equal(Minified(5000), Minified(5000)) {
		t.Fatal("Minified is not deterministic")
	}
}

func TestGoTestOutputs(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(int) []byte
		fail bool
	}{{"many", GoTestMany, false}, {"interleaved", GoTestInterleaved, true}} {
		t.Run(c.name, func(t *testing.T) {
			out := c.make(4 << 20)
			if len(out) < 4<<20 || len(out) > 4<<20+512 {
				t.Fatalf("%d bytes for 4 MiB asked", len(out))
			}
			if !bytes.Equal(out, c.make(4<<20)) {
				t.Fatal("not deterministic")
			}
			lines := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
			seen := map[string]bool{}
			for _, l := range lines {
				seen[string(l)] = true
			}
			// A RUN line's name comes back in its PASS line: every line
			// but those and the packages' PASS lines is new.
			if len(seen) < len(lines)*45/100 {
				t.Fatalf("%d distinct lines of %d: the output repeats itself", len(seen), len(lines))
			}
			if got := bytes.Contains(out, []byte("\n--- FAIL: ")); got != c.fail {
				t.Fatalf("a failing test in the output: %v, want %v", got, c.fail)
			}
			if !bytes.HasPrefix(out, []byte("=== RUN   Test")) || !bytes.Contains(out, []byte("\nok  \texample.com/mod/pkg0\t")) && !bytes.Contains(out, []byte("\nFAIL\texample.com/mod/pkg0\t")) {
				t.Fatalf("not go test -v output: %.200s", out)
			}
		})
	}
}
