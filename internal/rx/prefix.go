package rx

import (
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// prefixMachine is the third prefilter. It reads the start of a line as
// the expression's program would, all its threads at once, and turns the
// line away as soon as none of them can go on; it admits the line once a
// thread can match (zero-width assertions taken as holding, as in
// pairs.go, but for the end of the text, `$`, known to hold at the line's
// end only), or at the first byte past ASCII. A thread that reached the
// match without passing an assertion (but the line's start and end, which
// hold there) answers MatchString itself: the line matches.
//
// Its states, the sets of threads after the bytes read so far, are made
// as lines need them and kept: a line costs a table load per byte read
// instead of a run of the matcher, whose cost grows with the size of the
// expression and the length of the line however early it ends. An
// indented line against `^\s*FAIL |...` is read to its first letter.
type prefixMachine struct {
	prog  *syntax.Prog
	start *prefixState
	mu    sync.Mutex // guards states and the making of transitions
	// states are the states made, by their threads; at most maxStates.
	states map[string]*prefixState
}

// prefixState is a set of threads: the program's rune-reading
// instructions they wait at, each as pc<<1, | 1 when the thread passed an
// assertion on its way (taken as holding: where it leads is not known).
type prefixState struct {
	threads []uint32
	// atEnd says a thread matches if the line ends here: with no
	// assertion passed (exact), or only through one (inexact).
	atEnd struct{ exact, inexact bool }
	next  [utf8.RuneSelf]atomic.Pointer[prefixState]
}

// Three states every machine shares: no thread left (the line cannot
// match), a thread that can match (admit the line), a thread that matched
// with no assertion passed (the line matches).
var (
	noThread = new(prefixState)
	canMatch = new(prefixState)
	matched  = new(prefixState)
)

// maxStates bounds the states of one machine (each holds a table of 128
// pointers): past it, a line that needs another is admitted.
const maxStates = 256

// newPrefixMachine makes the machine of an anchored expression that cannot
// match the empty string; nil if its program cannot be made.
func newPrefixMachine(re *syntax.Regexp) *prefixMachine {
	prog, err := syntax.Compile(re)
	if err != nil {
		return nil
	}
	m := &prefixMachine{prog: prog, states: map[string]*prefixState{}}
	start := threadClosure(prog, []uint32{uint32(prog.Start) << 1}, true)
	if start.exact || start.inexact {
		return nil
	}
	m.start = m.state(start)
	return m
}

// match reports whether the expression matches s, and whether that is
// known: not when the threads read up to a byte past ASCII, or a thread
// that can match passed an assertion, or the machine has too many states.
func (m *prefixMachine) match(s string) (matches, known bool) {
	st := m.start
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return false, false // a rune: the matcher decodes it, not this table
		}
		next := st.next[c].Load()
		if next == nil {
			if next = m.make(st, c); next == nil {
				return false, false // too many states
			}
		}
		switch next {
		case noThread:
			return false, true
		case matched:
			return true, true
		case canMatch:
			return false, false
		}
		st = next
	}
	switch { // the end of s
	case st.atEnd.exact:
		return true, true
	case st.atEnd.inexact:
		return false, false
	}
	return false, true
}

// make finds or makes where st goes on reading c; nil when that would be
// one state too many.
func (m *prefixMachine) make(st *prefixState, c byte) *prefixState {
	m.mu.Lock()
	defer m.mu.Unlock()
	if next := st.next[c].Load(); next != nil {
		return next
	}
	after := threadClosure(m.prog, stepThreads(m.prog, st.threads, rune(c)), false)
	var next *prefixState
	switch {
	case after.exact:
		next = matched
	case after.inexact:
		next = canMatch
	case len(after.threads) == 0 && !after.atEnd.exact && !after.atEnd.inexact:
		next = noThread
	default:
		if next = m.state(after); next == nil {
			return nil
		}
	}
	st.next[c].Store(next)
	return next
}

// state returns the state of set, made if it is new; nil past maxStates.
// Callers hold mu, or own m alone.
func (m *prefixMachine) state(set threadSet) *prefixState {
	threads := slices.Clone(set.threads)
	slices.Sort(threads)
	var key strings.Builder
	key.WriteString(strconv.FormatBool(set.atEnd.exact) + strconv.FormatBool(set.atEnd.inexact))
	for _, t := range threads {
		key.WriteByte(',')
		key.WriteString(strconv.FormatUint(uint64(t), 36))
	}
	if st, ok := m.states[key.String()]; ok {
		return st
	}
	if len(m.states) >= maxStates {
		return nil
	}
	st := &prefixState{threads: threads, atEnd: set.atEnd}
	m.states[key.String()] = st
	return st
}

// threadSet is where threads stand once every instruction that reads no
// input has been followed: the rune-reading ones they wait at, whether
// one reached the match with no assertion passed (exact) or only through
// one (inexact), and the same for a match that needs the text to end
// here (atEnd: it passed a `$`).
type threadSet struct {
	threads        []uint32
	exact, inexact bool
	atEnd          struct{ exact, inexact bool }
}

// threadClosure follows every instruction that reads no input from
// threads (pc<<1, | 1 once an assertion was passed). atStart says no byte
// has been read: the assertions of a line's start hold there, and only
// there.
func threadClosure(prog *syntax.Prog, threads []uint32, atStart bool) threadSet {
	var out threadSet
	// A thread is visited once per mark (bit 0) and once more past a
	// `$` (bit 1): from there on it can only match, never read.
	seen := make(map[uint64]bool)
	var visit func(t uint32, end bool)
	visit = func(t uint32, end bool) {
		key := uint64(t) << 1
		if end {
			key |= 1
		}
		if seen[key] {
			return
		}
		seen[key] = true
		pc, passed := t>>1, t&1
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			visit(in.Out<<1|passed, end)
			visit(in.Arg<<1|passed, end)
		case syntax.InstCapture, syntax.InstNop:
			visit(in.Out<<1|passed, end)
		case syntax.InstEmptyWidth:
			switch op := syntax.EmptyOp(in.Arg); {
			case op == syntax.EmptyEndText:
				end = true // holds at the end of the text only: known there
			case atStart && op&^(syntax.EmptyBeginText|syntax.EmptyBeginLine) == 0:
				// the start of the text, where it holds
			default:
				passed = 1
			}
			visit(in.Out<<1|passed, end)
		case syntax.InstMatch:
			switch {
			case end && passed == 0:
				out.atEnd.exact = true
			case end:
				out.atEnd.inexact = true
			case passed == 0:
				out.exact = true
			default:
				out.inexact = true
			}
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			if !end { // past a `$`, nothing can be read
				out.threads = append(out.threads, t)
			}
		}
	}
	for _, t := range threads {
		visit(t, false)
	}
	return out
}

// stepThreads returns where threads go on reading r, each keeping its mark.
func stepThreads(prog *syntax.Prog, threads []uint32, r rune) []uint32 {
	var out []uint32
	for _, t := range threads {
		if next := step(prog, []uint32{t >> 1}, r); len(next) > 0 {
			out = append(out, next[0]<<1|t&1)
		}
	}
	return out
}
