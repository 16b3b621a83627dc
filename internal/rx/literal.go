package rx

import (
	"regexp/syntax"
	"unicode/utf8"
)

// required returns the longest run of text that every match of re holds,
// or "" when it knows none. It reads what a match must pass through: a
// concatenation's parts, a capture, a repetition of at least once. A
// literal matched ignoring case, or holding a rune past ASCII (which the
// matcher may match against an invalid byte read as U+FFFD), is not used:
// a plain search for its text could miss a match.
func required(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return ""
		}
		for _, r := range re.Rune {
			if r >= utf8.RuneSelf {
				return ""
			}
		}
		return string(re.Rune)
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		best := ""
		for _, sub := range re.Sub {
			if s := required(sub); len(s) > len(best) {
				best = s
			}
		}
		return best
	}
	return ""
}
