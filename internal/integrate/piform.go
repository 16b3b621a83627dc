package integrate

import (
	"strings"
	"unicode/utf8"

	"github.com/freshctx/freshctx/internal/readcache"
)

// piForm is the text pi's built-in read delivers for a file, as read of
// version 0.73.1 (dist/core/tools/read.js): the bytes decoded as UTF-8 the
// way Node's Buffer.toString does it — a byte-order mark and "\r\n" kept,
// each maximal ill-formed subsequence one U+FFFD (WHATWG) — and the lines
// the text split at "\n". pi sends the lines as they are, without numbers.
// Where this is wrong the delivered text does not match and the file's
// picture is erased: content is served again, never a wrong note.
type piForm struct{}

func (piForm) Text(b []byte) string { return decodeWHATWG(b) }

func (piForm) TotalLines(text string) int { return strings.Count(text, "\n") + 1 }

func (piForm) Sent(text string, _ int) string { return text }

// Numbered is false: pi sends the lines bare, and a run of empty lines is
// far fewer tokens than lines.
func (piForm) Numbered() bool { return false }

// FormNamed is the client form a name stands for ("pi"), nil for any
// other: the MCP server's read takes it from the client's extension.
func FormNamed(name string) readcache.Form {
	if name == "pi" {
		return piForm{}
	}
	return nil
}

// decodeWHATWG decodes b as UTF-8 replacing each maximal subpart of an
// ill-formed sequence by one U+FFFD, as the WHATWG Encoding Standard (and
// so Node and browsers) does; Go's own decoding replaces each byte.
func decodeWHATWG(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for len(b) > 0 {
		if r, n := utf8.DecodeRune(b); r != utf8.RuneError || n > 1 {
			sb.Write(b[:n])
			b = b[n:]
			continue
		}
		sb.WriteRune(utf8.RuneError)
		b = b[maximalSubpart(b):]
	}
	return sb.String()
}

// maximalSubpart is the length of the longest start of b (which does not
// begin a well-formed character) that could begin one: the bytes one
// U+FFFD replaces.
func maximalSubpart(b []byte) int {
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	default:
		return 1
	}
	i := 1
	for ; i <= need && i < len(b) && b[i] >= lo && b[i] <= hi; i++ {
		lo, hi = 0x80, 0xBF
	}
	return i
}
