package redact

import (
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/freshctx/freshctx/internal/rx"
)

// boundedReach derives a reach for a gitleaks rule from its expression: if
// every match is of bounded length, holds one of the rule's keywords in a
// part of the expression and uses no anchor but a `$` that ends it, a
// match around a keyword occurrence starts at most the width of the parts
// up to that one before it and ends at most the width of the parts from
// that one on after it. The stretch is widened to start
// after a byte that is not a word's (so `\b` sees there what it sees in the
// whole line) and to end before one of the bytes `$` stands in for (so `$`
// matches at its end only where the whole line has such a byte); it
// returns nil for any other expression, whose rule then runs on the whole
// line.
func boundedReach(expr string, keywords []string) reach {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	if width(re) < 0 || !anchorsOnlyAtEnd(re) {
		return nil
	}
	before, after, ok := keywordSpan(re, keywords)
	if !ok {
		return nil
	}
	return func(line []byte, s, e int) span {
		start := max(0, s-before)
		for start > 0 && rx.IsWordByte(line[start-1]) {
			start--
		}
		return span{start, endBeforeTerminator(line, e+after)}
	}
}

// endBeforeTerminator moves end forward to the line's end or to a byte a
// gitleaks value ends at (`(?:[\x60'"\s;]|\\[nr]|$)`), which no value
// includes.
func endBeforeTerminator(line []byte, end int) int {
	end = min(end, len(line))
	for end < len(line) && !endsLeakValue(line[end]) {
		end++
	}
	return end
}

// width is the most bytes a match of re can be, or -1 if unbounded.
func width(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += runeWidth(r, re.Flags&syntax.FoldCase != 0)
		}
		return n
	case syntax.OpCharClass:
		n := 0
		for i := 1; i < len(re.Rune); i += 2 {
			n = max(n, utf8.RuneLen(re.Rune[i]))
		}
		return n
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return width(re.Sub[0])
	case syntax.OpRepeat:
		if re.Max < 0 {
			return -1
		}
		sub := width(re.Sub[0])
		if sub < 0 {
			return -1
		}
		return sub * re.Max
	case syntax.OpConcat, syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			w := width(sub)
			if w < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				n += w
			} else {
				n = max(n, w)
			}
		}
		return n
	}
	return -1 // star, plus, no match
}

// runeWidth is the most bytes r can match: case folding takes `k` to the
// Kelvin sign and `s` to the long s.
func runeWidth(r rune, fold bool) int {
	n := utf8.RuneLen(r)
	if fold {
		for f := r; ; {
			if f = unicode.SimpleFold(f); f == r {
				break
			}
			n = max(n, utf8.RuneLen(f))
		}
	}
	return n
}

// anchorsOnlyAtEnd: no `^`, `\A`, `\B` or multi-line `$` anywhere, and
// `$` only as an alternative of the expression's last part.
func anchorsOnlyAtEnd(re *syntax.Regexp) bool {
	if re.Op == syntax.OpConcat && len(re.Sub) > 0 {
		last := re.Sub[len(re.Sub)-1]
		for _, sub := range re.Sub[:len(re.Sub)-1] {
			if !noAnchor(sub) {
				return false
			}
		}
		if last.Op == syntax.OpAlternate {
			for _, alt := range last.Sub {
				if alt.Op != syntax.OpEndText && !noAnchor(alt) {
					return false
				}
			}
			return true
		}
		return noAnchor(last)
	}
	return noAnchor(re)
}

func noAnchor(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpNoWordBoundary:
		return false
	}
	for _, sub := range re.Sub {
		if !noAnchor(sub) {
			return false
		}
	}
	return true
}

// keywordSpan reports whether every match of re (of bounded width) holds
// one of keywords (lower case; compared ignoring ASCII case), and then how
// many bytes a match can reach before the keyword's start and after its
// end: some part of the expression, or run of parts, matches a small set
// of strings each holding one, or each alternative holds one.
func keywordSpan(re *syntax.Regexp, keywords []string) (before, after int, ok bool) {
	switch re.Op {
	case syntax.OpCapture:
		return keywordSpan(re.Sub[0], keywords)
	case syntax.OpConcat:
		for i, sub := range re.Sub {
			head, tail := widths(re.Sub[:i]), widths(re.Sub[i+1:])
			if b, a, ok := keywordSpan(sub, keywords); ok {
				return head + b, a + tail, true
			}
			// or a run of parts together, as `(?:live|test)` and `_`
			for j := i + 2; j <= len(re.Sub); j++ {
				strs, ok := language(&syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[i:j]})
				if !ok {
					break
				}
				if allHold(strs, keywords) {
					return widths(re.Sub[:j]), widths(re.Sub[i:]), true
				}
			}
		}
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			b, a, ok := keywordSpan(sub, keywords)
			if !ok {
				before, after = 0, 0
				break
			}
			before, after = max(before, b), max(after, a)
		}
		if before > 0 || after > 0 {
			return before, after, true
		}
	}
	if strs, ok := language(re); ok && allHold(strs, keywords) {
		return width(re), width(re), true
	}
	return 0, 0, false
}

// widths is the most bytes a match of parts in a row can be.
func widths(parts []*syntax.Regexp) int {
	n := 0
	for _, p := range parts {
		n += width(p)
	}
	return n
}

func allHold(strs, keywords []string) bool {
	for _, s := range strs {
		if !containsAny(s, keywords) {
			return false
		}
	}
	return len(strs) > 0
}

func containsAny(s string, keywords []string) bool {
	for _, k := range keywords {
		if strings.Contains(s, strings.ToLower(k)) {
			return true
		}
	}
	return false
}

// maxLanguage bounds the strings language enumerates.
const maxLanguage = 256

// language lists the strings re matches, folded to ASCII lower case, if
// they are few and ASCII; false means not known. The Kelvin sign and the
// long s, which case folding matches for `k` and `s`, are left out: the
// prefilter, like gitleaks' own keyword check, compares ASCII only, so a
// keyword spelled with them is not looked for in any line.
func language(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpLiteral:
		var b strings.Builder
		for _, r := range re.Rune {
			if r >= utf8.RuneSelf {
				return nil, false
			}
			b.WriteByte(rx.Lower[byte(r)])
		}
		return []string{b.String()}, true
	case syntax.OpCharClass:
		seen := map[string]bool{}
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if lo := re.Rune[i]; lo == re.Rune[i+1] && (lo == '\u017f' || lo == '\u212a') {
				continue
			}
			if re.Rune[i+1] >= utf8.RuneSelf || re.Rune[i+1]-re.Rune[i] > 8 {
				return nil, false
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if s := string(rune(rx.Lower[byte(r)])); !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
		return out, true
	case syntax.OpCapture:
		return language(re.Sub[0])
	case syntax.OpQuest:
		sub, ok := language(re.Sub[0])
		return append([]string{""}, sub...), ok
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			s, ok := language(sub)
			if !ok || len(out)+len(s) > maxLanguage {
				return nil, false
			}
			out = append(out, s...)
		}
		return out, true
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			s, ok := language(sub)
			if !ok || len(out)*len(s) > maxLanguage {
				return nil, false
			}
			next := make([]string, 0, len(out)*len(s))
			for _, a := range out {
				for _, b := range s {
					next = append(next, a+b)
				}
			}
			out = next
		}
		return out, true
	}
	return nil, false
}

// nameTemplate is the start of the expressions gitleaks builds for a
// service's key: a name prefix, the service's name (here `x`), up to 20
// more name bytes, quotes or spaces, and a separator.
var nameTemplate = func() *syntax.Regexp {
	re, err := syntax.Parse(`(?i)[\w.-]{0,50}?(?:x)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`, syntax.Perl)
	if err != nil {
		panic(err)
	}
	return re
}()

// namedValue reports whether expr starts as nameTemplate does and each
// name it matches ends with one of keywords: a match then holds a keyword
// occurrence followed by the separator within 23 bytes, which
// separatorSoon admits.
func namedValue(expr string, keywords []string) bool {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat || len(re.Sub) < len(nameTemplate.Sub) {
		return false
	}
	for i, want := range nameTemplate.Sub {
		if i != 1 && !re.Sub[i].Equal(want) {
			return false
		}
	}
	names, ok := language(re.Sub[1])
	if !ok || len(names) == 0 {
		return false
	}
	for _, name := range names {
		if !endsWithAny(name, keywords) {
			return false
		}
	}
	return true
}

func endsWithAny(s string, keywords []string) bool {
	for _, k := range keywords {
		if strings.HasSuffix(s, strings.ToLower(k)) {
			return true
		}
	}
	return false
}
