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
