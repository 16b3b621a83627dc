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
// pairs.go), or at the first byte past ASCII. Its states, the sets of
// threads after the bytes read so far, are made as lines need them and
// kept: a line the expression cannot match costs a table load per byte
// read instead of a run of the matcher, whose cost grows with the size of
// the expression and the length of the line however early it fails. An
// indented line against `^\s*FAIL |...` is read to its first letter.
type prefixMachine struct {
	prog  *syntax.Prog
	start *prefixState
	mu    sync.Mutex // guards states and the making of transitions
	// states are the states made, by their threads; at most maxStates.
	states map[string]*prefixState
}

// prefixState is a set of threads: the program's rune-reading
// instructions they wait at.
type prefixState struct {
	pcs  []uint32
	next [utf8.RuneSelf]atomic.Pointer[prefixState]
}

// Two states every machine shares: no thread left (turn the line away), a
// thread that can match (admit it).
var (
	noThread = new(prefixState)
	canMatch = new(prefixState)
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
	start := closure(prog, []uint32{uint32(prog.Start)})
	if start.matches {
		return nil
	}
	m.start = m.state(start.runes)
	return m
}

// may reports whether a match of the expression can start s: false when
// every thread has died in s's first bytes, or wants more than s holds.
func (m *prefixMachine) may(s string) bool {
	st := m.start
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return true // a rune: the matcher decodes it, not this table
		}
		next := st.next[c].Load()
		if next == nil {
			if next = m.make(st, c); next == nil {
				return true // too many states
			}
		}
		switch next {
		case noThread:
			return false
		case canMatch:
			return true
		}
		st = next
	}
	return false // no thread can match at the end of s
}

// make finds or makes where st goes on reading c; nil when that would be
// one state too many.
func (m *prefixMachine) make(st *prefixState, c byte) *prefixState {
	m.mu.Lock()
	defer m.mu.Unlock()
	if next := st.next[c].Load(); next != nil {
		return next
	}
	after := closure(m.prog, step(m.prog, st.pcs, rune(c)))
	var next *prefixState
	switch {
	case after.matches:
		next = canMatch
	case len(after.runes) == 0:
		next = noThread
	default:
		if next = m.state(after.runes); next == nil {
			return nil
		}
	}
	st.next[c].Store(next)
	return next
}

// state returns the state of the threads at pcs, made if it is new; nil
// past maxStates. Callers hold mu, or own m alone.
func (m *prefixMachine) state(pcs []uint32) *prefixState {
	pcs = slices.Clone(pcs)
	slices.Sort(pcs)
	var key strings.Builder
	for _, pc := range pcs {
		key.WriteString(strconv.FormatUint(uint64(pc), 36))
		key.WriteByte(',')
	}
	if st, ok := m.states[key.String()]; ok {
		return st
	}
	if len(m.states) >= maxStates {
		return nil
	}
	st := &prefixState{pcs: pcs}
	m.states[key.String()] = st
	return st
}
