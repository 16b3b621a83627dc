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
		for b := range 256 {
			if b >= utf8.RuneSelf || len(step(prog, next.runes, rune(b))) > 0 {
				p.set(byte(a), byte(b))
			}
		}
	}
	return p, true
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
	seen := make(map[uint32]bool)
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
		in := &prog.Inst[pc]
		ok := false
		switch in.Op {
		case syntax.InstRuneAny:
			ok = true
		case syntax.InstRuneAnyNotNL:
			ok = r != '\n'
		default:
			ok = in.MatchRune(r)
		}
		if ok {
			out = append(out, in.Out)
		}
	}
	return out
}
