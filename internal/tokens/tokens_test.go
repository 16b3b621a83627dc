package tokens

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestCountIsRealTokenizer(t *testing.T) {
	// o200k_base splits this into 2 tokens; bytes/4 would say 3.
	if got := Count("hello world"); got != 2 {
		t.Fatalf("Count = %d, want 2", got)
	}
	if Count("") != 0 {
		t.Fatal("empty text has tokens")
	}
	if Count("\xff\xfe invalid") == 0 {
		t.Fatal("invalid UTF-8 counted as nothing")
	}
}

func TestCounterExactWithinBudget(t *testing.T) {
	line := "--- FAIL: TestFoo (0.00s) foo_test.go:12: want 3\n"
	text := strings.Repeat(line, 5000)
	var added, written Counter
	for i := 0; i < len(text); i += 1000 { // pieces that split lines
		added.Add(text[i:min(i+1000, len(text))])
		written.Write([]byte(text[i:min(i+1000, len(text))]))
	}
	want := Count(text)
	for name, c := range map[string]*Counter{"Add": &added, "Write": &written} {
		n, exact := c.Total()
		if !exact {
			t.Fatalf("%s: want exact within budget", name)
		}
		// Chunks split at line ends, where o200k never merges across.
		if n != want {
			t.Fatalf("%s: Counter = %d, Count = %d", name, n, want)
		}
	}
}

func TestCounterExtrapolatesPastBudget(t *testing.T) {
	line := "some log line with words 12345\n"
	c := Counter{Budget: 1000, SampleEvery: 4}
	for range 20000 {
		c.Add(line)
	}
	n, exact := c.Total()
	if exact {
		t.Fatal("want an estimate past the budget")
	}
	perLine := Count(line)
	if n < perLine*19000 || n > perLine*21000 {
		t.Fatalf("estimate %d, want about %d", n, perLine*20000)
	}
}

// TestAtLeastBoundsTheCount: the bound made without the vocabulary is
// never more than the count, on text made of letters, digits, contractions,
// white space and punctuation, and on the notes the read cache sends.
func TestAtLeastBoundsTheCount(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"[unchanged: d0/f6.go, all 1 lines as you last read them]", 17},
		{"it's a test", 3},  // "s" may join "it"
		{"abc123def", 3},    // digits stand apart from letters
		{"café au lait", 0}, // past ASCII: no bound
		{"1\t[unchanged: small.cfg, all 2 lines as you last read them]", 15},
		{"a.b ..c !", 5}, // one mark before letters may join them
		{"1234567", 3},   // three digits a piece
		{"}\n// x", 2},   // the slashes may end the brace's piece
		{"a!\x01!", 1},   // a control byte may join marks: none counted
		{"if (x) {\n\treturn\n}", 6},
	} {
		if got := AtLeast(c.s); got != c.want {
			t.Errorf("AtLeast(%q) = %d, want %d", c.s, got, c.want)
		}
		if got, n := AtLeast(c.s), Count(c.s); got > n {
			t.Errorf("AtLeast(%q) = %d, more than its %d tokens", c.s, got, n)
		}
	}
	pieces := []string{"a", "Z", "word", "Words", "x1", "42", "1234567", "'s", "'T", "'re", "'", "don't", " ", "  ", "\n", "\t",
		"/", ".", ",", ":", "[", "]", "-", "_", "__init__", "go.mod", "CamelCase", "ID", "v1.2.3", "0x1F", "\r\n", "'ll", "''",
		"!", "(", ")", "{", "}", "\"", "#", "=", "+", "*", "->", "//", "/*", "!!", " !", "\x01", "\v", "\f", "\x7f", "123",
		"9", "1234", "\n/", "'s!", "1\t", "ALLCAPS", "é"}
	rapid.Check(t, func(t *rapid.T) {
		s := strings.Join(rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 30).Draw(t, "pieces"), "")
		if got, n := AtLeast(s), Count(s); got > n {
			t.Fatalf("AtLeast(%q) = %d, more than its %d tokens", s, got, n)
		}
	})
	// Any ASCII at all, mostly printable.
	ascii := rapid.OneOf(rapid.ByteRange(0x20, 0x7e), rapid.ByteRange(0x20, 0x7e), rapid.SampledFrom([]byte("\t\n\r /")), rapid.ByteRange(0, 0x7f))
	rapid.Check(t, func(t *rapid.T) {
		b := rapid.SliceOfN(ascii, 0, 40).Draw(t, "bytes")
		if got, n := AtLeast(string(b)), Count(string(b)); got > n {
			t.Fatalf("AtLeast(%q) = %d, more than its %d tokens", b, got, n)
		}
	})
}
