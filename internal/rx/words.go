package rx

import "strings"

// ClassName reports whether s holds a word (a run of ASCII letters, digits
// and '_', as \b sees them) that ends in suffix, is longer than it and
// starts with an upper-case letter: a class name such as "TypeError" or
// "java.lang.NullPointerException"'s last word for suffix "Error" or
// "Exception", where "handleError", "Errorf" and "Error" are not. It
// looks only where suffix occurs: most lines hold it nowhere.
func ClassName(s, suffix string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], suffix)
		if i < 0 {
			return false
		}
		i += from
		if end := i + len(suffix); end == len(s) || !IsWordByte(s[end]) {
			start := i
			for start > 0 && IsWordByte(s[start-1]) {
				start--
			}
			if start < i && 'A' <= s[start] && s[start] <= 'Z' {
				return true
			}
		}
		from = i + 1
	}
}

// IsWordByte reports whether c is in regexp's \w: an ASCII letter, a digit
// or '_', the bytes \b tells words by.
func IsWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// Lower lowercases an ASCII letter and leaves every other byte, as a table
// the scans of every line index: the words they look for are ASCII, and a
// byte of a multi-byte letter is never one of theirs.
var Lower = func() (t [256]byte) {
	for c := range t {
		t[c] = byte(c)
		if 'A' <= c && c <= 'Z' {
			t[c] += 'a' - 'A'
		}
	}
	return t
}()
