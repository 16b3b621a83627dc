package sha

import (
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	d := Bytes([]byte("hello"))
	const want = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
	if d.String() != want {
		t.Fatalf("String = %s", d)
	}
	p, err := Parse(want)
	if err != nil || p != d {
		t.Fatalf("Parse = %v, %v", p, err)
	}
	r, n, err := Reader(strings.NewReader("hello"))
	if err != nil || r != d || n != 5 {
		t.Fatalf("Reader = %v %d %v", r, n, err)
	}
	if z, err := Parse(""); err != nil || !z.IsZero() || z.String() != "" {
		t.Fatalf("zero sum: %v %v", z, err)
	}
	for _, bad := range []string{"xyz", strings.Repeat("g", 64)} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = nil error", bad)
		}
	}
}

// List moves with every item, their order and where one ends.
func TestList(t *testing.T) {
	base := List([]string{"a", "b"})
	for _, other := range [][]string{{"b", "a"}, {"ab"}, {"a", "b", ""}, {"a"}, {"a", "c"}, nil} {
		if List(other) == base {
			t.Errorf("List(%q) equals List([a b])", other)
		}
	}
	if List([]string{"a", "b"}) != base {
		t.Error("the same list digests apart")
	}
}
