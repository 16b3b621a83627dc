package rx

import (
	"regexp/syntax"
	"unicode/utf8"
)

// pairSet is the second prefilter: for each first byte, the second bytes a
// match can go on with (one bit each). A first byte outside ASCII, and a
// second one, are always admitted: the matcher reads such bytes as runes
// this table does not follow.
type pairSet [256][4]uint64

func (p *pairSet) set(a, b byte)      { p[a][b>>6] |= 1 << (b & 63) }
func (p *pairSet) has(a, b byte) bool { return p[a][b>>6]&(1<<(b&63)) != 0 }

func (p *pairSet) setRow(a byte) {
	for i := range p[a] {
		p[a][i] = ^uint64(0)
	}
}

// pairsOf computes the pairs of an anchored expression by running its
// program over every ASCII first byte. Zero-width assertions (^, $, \b)
// are taken as holding: the set may admit more than matches, never less.
// The second bytes each instruction takes are worked out once (asciiOf),
// not once per first byte: a process compiles a hundred expressions on
// its first lines of output, and this walk was most of their cost.
func pairsOf(re *syntax.Regexp) (*pairSet, bool) {
	prog, err := syntax.Compile(re)
	if err != nil {
		return nil, false
	}
	start := closure(prog, []uint32{uint32(prog.Start)})
	if start.matches {
		return nil, false // the empty string matches: no bound
	}
	p := new(pairSet)
	takes := make([]*[2]uint64, len(prog.Inst))
	for a := range 256 {
		if a >= utf8.RuneSelf {
			p.setRow(byte(a))
			continue
		}
		next := closure(prog, step(prog, start.runes, rune(a)))
		if next.matches {
			p.setRow(byte(a)) // a match may end after one byte
			continue
		}
		for _, pc := range next.runes {
			if takes[pc] == nil {
				takes[pc] = asciiOf(&prog.Inst[pc])
			}
			p[a][0] |= takes[pc][0]
			p[a][1] |= takes[pc][1]
		}
		p[a][2], p[a][3] = ^uint64(0), ^uint64(0) // past ASCII: always admitted
	}
	return p, true
}

// asciiOf is the set of ASCII bytes the rune-consuming instruction in takes.
func asciiOf(in *syntax.Inst) *[2]uint64 {
	var m [2]uint64
	for r := range rune(utf8.RuneSelf) {
		if takesRune(in, r) {
			m[r>>6] |= 1 << (r & 63)
		}
	}
	return &m
}

// states are the rune-consuming instructions a thread can be at, and
// whether one can already match.
type states struct {
	runes   []uint32
	matches bool
}

// closure follows every instruction that consumes no input from pcs.
func closure(prog *syntax.Prog, pcs []uint32) states {
	var out states
	seen := make([]bool, len(prog.Inst))
	var visit func(pc uint32)
	visit = func(pc uint32) {
		if seen[pc] {
			return
		}
		seen[pc] = true
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			visit(in.Out)
			visit(in.Arg)
		case syntax.InstCapture, syntax.InstNop, syntax.InstEmptyWidth:
			visit(in.Out)
		case syntax.InstMatch:
			out.matches = true
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			out.runes = append(out.runes, pc)
		}
	}
	for _, pc := range pcs {
		visit(pc)
	}
	return out
}

// step returns where the threads at pcs go on reading r.
func step(prog *syntax.Prog, pcs []uint32, r rune) []uint32 {
	var out []uint32
	for _, pc := range pcs {
		if in := &prog.Inst[pc]; takesRune(in, r) {
			out = append(out, in.Out)
		}
	}
	return out
}

// takesRune reports whether the rune-consuming instruction in reads r.
func takesRune(in *syntax.Inst, r rune) bool {
	switch in.Op {
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	default:
		return in.MatchRune(r)
	}
}
