package termsafe

import (
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

func TestString(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "auth/token.go:12:5: undefined: x", "auth/token.go:12:5: undefined: x"},
		{"tabs and newlines stay", "a\tb\nc", "a\tb\nc"},
		{"colour", "\x1b[31mFAIL\x1b[0m TestX", "FAIL TestX"},
		{"reset terminal ESC c", "before\x1bcafter", "beforeafter"},
		{"charset ESC ( 0", "x\x1b(0lqqk\x1b(By", "xlqqky"},
		{"save cursor ESC 7", "a\x1b7b\x1b8c", "abc"},
		{"8-bit CSI", "a\u009b2Jb", "ab"},
		{"8-bit OSC", "a\u009d0;title\u009cb", "ab"},
		{"other C1", "a\u0085b", "ab"},
		{"bell", "ding\x07dong", "dingdong"},
		{"backspace", "pass\x08\x08\x08\x08fail", "passfail"},
		{"carriage return", "100%\rdone", "100%done"},
		{"OSC 52 clipboard", "x\x1b]52;c;ZWNobyBwd25lZA==\x07y", "xy"},
		{"OSC title with ST", "x\x1b]0;owned\x1b\\y", "xy"},
		{"unterminated OSC", "x\x1b]0;owned", "x"},
		{"clear screen", "\x1b[2J\x1b[Hhello", "hello"},
		{"DCS", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"lone ESC at end", "a\x1b", "a"},
		{"bidi override", "if access \u202eadmin\u202c {", "if access admin {"},
		{"bidi isolate", "a\u2066b\u2069c", "abc"},
		{"invalid utf-8", "a\xffb", "a\uFFFDb"},
		{"raw 0x9b byte", "a\x9b2Jb", "a\uFFFD2Jb"},
		{"unicode stays", "naïve — ✓ 日本", "naïve — ✓ 日本"},
		{"DEL", "a\x7fb", "ab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := String(tc.in); got != tc.want {
				t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestLine(t *testing.T) {
	if got := Line("go test\n\x1b]0;x\x07./...\t-v"); got != "go test ./... -v" {
		t.Fatalf("Line = %q", got)
	}
}

// FuzzString: nothing String returns holds a control a terminal acts on.
func FuzzString(f *testing.F) {
	for _, s := range []string{"\x1b[31mx", "\x1b]52;c;x\x07", "\u009b1m", "\u202e", "a\xffb", "\x1bc", "\x1b(0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := String(s)
		if !utf8.ValidString(got) {
			t.Fatalf("String(%q) = %q: invalid UTF-8", s, got)
		}
		for _, r := range got {
			if r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f || bidi(r) {
				t.Fatalf("String(%q) = %q keeps control %U", s, got, r)
			}
		}
		if String(got) != got {
			t.Fatalf("String is not idempotent on %q", s)
		}
		if Safe(s) != (got == s) {
			t.Fatalf("Safe(%q) = %v, but String returns %q", s, Safe(s), got)
		}
		if strings.Count(got, "\n") > strings.Count(s, "\n") {
			t.Fatal("newlines added")
		}
	})
}

func BenchmarkStringClean(b *testing.B) {
	line := strings.Repeat("--- FAIL: TestParse (0.00s) parse_test.go:42: got 1 want 2 ", 4)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		String(line)
	}
}

func TestWriterJoinsSplitSequences(t *testing.T) {
	var out strings.Builder
	w := NewWriter(&out)
	for _, part := range []string{"title \x1b]0;ow", "ned\x07 ok\nnext \x1b[3", "1mred\x1b[0m", " end"} {
		if _, err := w.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "title  ok\nnext red end" {
		t.Fatalf("Writer = %q", got)
	}
}

// TestPrintable8 holds the eight-byte test to the byte-by-byte one:
// printable ASCII or tab.
func TestPrintable8(t *testing.T) {
	answers := map[bool]int{}
	rapid.Check(t, func(t *rapid.T) {
		// Mostly printable bytes and tabs, so both answers are common, and
		// the bytes beside the edges of the range.
		edges := rapid.SampledFrom([]byte{0x00, 0x08, 0x0a, 0x1f, 0x20, 0x7e, 0x7f, 0x80, 0x89, 0xa0, 0xff})
		// Half the draws are printable throughout: eight bytes drawn one by
		// one came out all printable about one time in nine, and a short
		// run of 20 could draw none.
		printable := rapid.OneOf(rapid.ByteRange(0x20, 0x7e), rapid.Just(byte('\t')))
		byteOf := rapid.OneOf(rapid.ByteRange(0x20, 0x7e), rapid.ByteRange(0x20, 0x7e), rapid.ByteRange(0x20, 0x7e),
			rapid.Just(byte('\t')), rapid.Just(byte('\t')), edges, rapid.Byte())
		if rapid.Bool().Draw(t, "printable throughout") {
			byteOf = printable
		}
		b := rapid.SliceOfN(byteOf, 8, 8).Draw(t, "bytes")
		want := true
		for _, c := range b {
			want = want && (c >= 0x20 && c <= 0x7e || c == '\t')
		}
		if got := printable8(binary.LittleEndian.Uint64(b)); got != want {
			t.Fatalf("%q: printable8 %v, want %v", b, got, want)
		}
		answers[want]++
	})
	if answers[true] == 0 || answers[false] == 0 {
		t.Fatalf("answers drawn: %v; want both", answers)
	}
}
