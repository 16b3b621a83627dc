// Package rx wraps regular expressions anchored at the start of a line
// with a prefilter: the set of bytes a match can start with, computed from
// the expression's syntax, and for each of them the second bytes that can
// follow, computed by running the expression's program over them
// (pairs.go). A line whose first two bytes are not in the set is turned
// away by two table loads instead of a run of the matcher; most lines of a
// long log or of source code start with bytes none of a pattern's
// alternatives can (`func` against an alternative `FAIL`). A line that
// gets past them is read on by an automaton made from the expression's
// program as lines need its states (prefix.go), up to the byte where no
// thread of the expression can go on: an indented line against
// `^\s*FAIL ` is turned away at its first letter.
//
// The prefilter only ever admits more than the expression matches, never
// less: a pattern it cannot bound (not anchored, or able to match the empty
// string) admits every line.
package rx

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// Regexp is an expression with its first-byte prefilter. It is compiled
// on first use, not when the program starts: a process that never needs it
// (most commands need few of a package's expressions) does not pay for it.
// Its prefilter is made once it has been tried prefilterAfter times: making
// one costs more than compiling the expression (3.7 ms against 2.9 for
// the digest's hundred expressions), which a short output, whose lines
// try each a few times, never earns back.
type Regexp struct {
	expr     string
	once     sync.Once
	re       *regexp.Regexp
	uses     atomic.Int32
	pre      atomic.Pointer[prefilter] // nil until made
	filtered sync.Once
}

// prefilterAfter is how many times an expression is tried before its
// prefilter is made.
const prefilterAfter = 64

// prefilter is what an expression's syntax says of the lines it can
// match.
type prefilter struct {
	first [256]bool
	pairs *pairSet // the first two bytes (pairs.go); nil: the first only
	// prefix reads further into the line (prefix.go); nil: no further.
	prefix *prefixMachine
	all    bool // no bound: every line is tried
	// need is text every match holds (literal.go), "" when none is
	// known: a line without it is turned away, anchored or not.
	need string
}

// made holds every expression MustCompile made, for CheckAll.
var made struct {
	sync.Mutex
	all []*Regexp
}

// MustCompile returns expr, compiled with its prefilter on first use. A bad
// expression panics then, as regexp.MustCompile does at once; CheckAll
// finds one in a test.
func MustCompile(expr string) *Regexp {
	r := &Regexp{expr: expr}
	made.Lock()
	made.all = append(made.all, r)
	made.Unlock()
	return r
}

// CheckAll compiles every expression made so far and reports the first
// that does not compile. Tests call it: the expressions are constants.
func CheckAll() error {
	made.Lock()
	all := append([]*Regexp(nil), made.all...)
	made.Unlock()
	for _, r := range all {
		if _, err := compile(r.expr); err != nil {
			return err
		}
	}
	return nil
}

// CheckPrefilter runs every expression made so far over lines, with its
// prefilter and without, and reports the first line the prefilter turned
// away that the expression matches, or where MatchString's answer is not
// the expression's. Tests call it with real outputs.
func CheckPrefilter(lines []string) error {
	made.Lock()
	all := append([]*Regexp(nil), made.all...)
	made.Unlock()
	for _, r := range all {
		r.load()
		r.makeFilter()
		for _, l := range lines {
			want := r.Std().MatchString(l)
			if !r.May(l) && want {
				return fmt.Errorf("rx: %q matches %q but the prefilter turned it away", r.expr, l)
			}
			if r.MatchString(l) != want {
				return fmt.Errorf("rx: %q: MatchString(%q) is not %v, as the expression's", r.expr, l, want)
			}
		}
	}
	return nil
}

// load compiles r once.
func (r *Regexp) load() {
	r.once.Do(func() {
		std, err := regexp.Compile(r.expr)
		if err != nil {
			panic("rx: " + err.Error())
		}
		r.re = std
	})
}

// filter returns r's prefilter, made on the prefilterAfter-th use; nil
// before.
func (r *Regexp) filter() *prefilter {
	if p := r.pre.Load(); p != nil {
		return p
	}
	if r.uses.Add(1) < prefilterAfter {
		return nil
	}
	r.makeFilter()
	return r.pre.Load()
}

// makeFilter makes r's prefilter now, if it has none yet.
func (r *Regexp) makeFilter() {
	r.filtered.Do(func() {
		p, err := prefilterOf(r.expr)
		if err != nil {
			panic("rx: " + err.Error()) // regexp compiled it: syntax parses it too
		}
		r.pre.Store(p)
	})
}

// compile compiles expr with its prefilter made at once.
func compile(expr string) (*Regexp, error) {
	std, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	p, err := prefilterOf(expr)
	if err != nil {
		return nil, err
	}
	r := &Regexp{expr: expr, re: std}
	r.once.Do(func() {})
	r.filtered.Do(func() {})
	r.pre.Store(p)
	return r, nil
}

func prefilterOf(expr string) (*prefilter, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	re = re.Simplify()
	p := &prefilter{need: required(re)}
	if !anchored(re) {
		p.all = true
		return p, nil
	}
	var f firstSet
	if f.of(re) {
		p.all = true // can match the empty string
		return p, nil
	}
	p.first, p.all = f.bytes, f.all
	if !p.all {
		p.pairs, _ = pairsOf(re)
		p.prefix = newPrefixMachine(re)
	}
	return p, nil
}

// Std is the compiled standard expression, without the prefilter.
func (r *Regexp) Std() *regexp.Regexp {
	r.load()
	return r.re
}

// String is the expression's source text.
func (r *Regexp) String() string { return r.expr }

// May reports whether s can match: false means it cannot.
func (r *Regexp) May(s string) bool {
	matches, known := r.known(s)
	return matches || !known
}

// known reports whether r matches s, and whether the prefilter knows it
// (when not, the matcher must say).
func (r *Regexp) known(s string) (matches, known bool) {
	r.load()
	p := r.filter()
	switch {
	case p == nil:
		return false, false
	case p.need != "" && !strings.Contains(s, p.need):
		return false, true
	case p.all:
		return false, false
	case len(s) == 0 || !p.first[s[0]]:
		return false, true
	case len(s) > 1 && p.pairs != nil && !p.pairs.has(s[0], s[1]):
		return false, true
	case p.prefix == nil:
		return false, false
	}
	return p.prefix.match(s)
}

// MatchString is regexp's, behind the prefilter, which answers itself
// where its automaton knows the answer (prefix.go).
func (r *Regexp) MatchString(s string) bool {
	if matches, known := r.known(s); known {
		return matches
	}
	return r.re.MatchString(s)
}

// Match is regexp's, without the prefilter: b may hold many lines.
func (r *Regexp) Match(b []byte) bool {
	r.load()
	return r.re.Match(b)
}

// FindStringSubmatch is regexp's, behind the prefilter.
func (r *Regexp) FindStringSubmatch(s string) []string {
	if !r.May(s) {
		return nil
	}
	return r.re.FindStringSubmatch(s)
}

// anchored reports whether every match of re starts at the start of the
// text.
func anchored(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginText:
		return true
	case syntax.OpCapture:
		return anchored(re.Sub[0])
	case syntax.OpConcat:
		return len(re.Sub) > 0 && anchored(re.Sub[0])
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if !anchored(s) {
				return false
			}
		}
		return true
	}
	return false
}

// firstSet gathers the bytes a match can start with.
type firstSet struct {
	bytes [256]bool
	all   bool
}

func (f *firstSet) addRange(lo, hi rune) {
	if hi >= utf8.RuneSelf {
		// Runes past ASCII start with a byte of 0x80 or more (a lead byte,
		// or a stray one the matcher reads as U+FFFD); admit them all.
		for b := 0x80; b < 0x100; b++ {
			f.bytes[b] = true
		}
		hi = utf8.RuneSelf - 1
	}
	for c := lo; c <= hi; c++ {
		f.bytes[c] = true
	}
}

func (f *firstSet) addRune(c rune, fold bool) {
	f.addRange(c, c)
	if fold {
		for o := unicode.SimpleFold(c); o != c; o = unicode.SimpleFold(o) {
			f.addRange(o, o)
		}
	}
}

// of adds the bytes re's matches can start with and reports whether re can
// match the empty string (so what follows it can start the match too).
func (f *firstSet) of(re *syntax.Regexp) (empty bool) {
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return true
		}
		f.addRune(re.Rune[0], re.Flags&syntax.FoldCase != 0)
		return false
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			f.addRange(re.Rune[i], re.Rune[i+1])
		}
		return false
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		f.all = true
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return f.of(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		f.of(re.Sub[0])
		return true
	case syntax.OpRepeat:
		e := f.of(re.Sub[0])
		return e || re.Min == 0
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !f.of(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		empty := false
		for _, s := range re.Sub {
			if f.of(s) {
				empty = true
			}
		}
		return empty
	}
	f.all = true // an operator not known here: no bound
	return false
}

// FindAllStringSubmatch is regexp's, behind the prefilter.
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	if !r.May(s) {
		return nil
	}
	return r.re.FindAllStringSubmatch(s, n)
}

// FindStringSubmatchIndex is regexp's, behind the prefilter.
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	if !r.May(s) {
		return nil
	}
	return r.re.FindStringSubmatchIndex(s)
}
