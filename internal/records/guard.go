package records

import (
	"fmt"

	"github.com/freshctx/freshctx/internal/compress"
)

// The analysis is lexical work on untrusted output; a bug in it must never
// cost the user the command's output or status. Each step runs guarded: a
// panic in the digest is recorded and the digest is built from then on by
// the plain generic compressor, which keeps every line it can; a panic in
// the scan costs the line its references and facts. Either is said at the
// top of the digest. The raw output never depends on the analysis: the
// sinks write it before the analysis sees a line.

// guardedAdd adds one line, surviving a panic; the line then goes to the
// fallback digest.
func (a *analysis) guardedAdd(l outLine) {
	defer func() {
		if r := recover(); r != nil {
			a.noteFault("reading a line", r)
			a.fallback.Line(l.text)
		}
	}()
	a.add(l)
}

// guardedChoose picks the compressor, surviving a panic.
func (a *analysis) guardedChoose() {
	defer a.recover("choosing a compressor")
	a.choose(true)
}

// finish returns the digest lines, headed by a note of what a panic in the
// scan cost.
func (a *analysis) finish() []compress.Kept {
	kept := a.digest()
	if a.scan.fault != "" {
		note := fmt.Sprintf("freshctx: %s; the references and facts of %d line(s) are not kept", a.scan.fault, a.scan.skipped)
		kept = append([]compress.Kept{{Text: note}}, kept...)
	}
	return kept
}

// digest returns the digest lines, surviving a panic in the compressor.
func (a *analysis) digest() (kept []compress.Kept) {
	defer func() {
		if r := recover(); r != nil {
			a.noteFault("building the digest", r)
			kept = a.fallback.Finish()
		}
	}()
	if a.fault != "" {
		return append([]compress.Kept{{Text: "freshctx: " + a.fault + "; the digest keeps every line from there on"}},
			a.fallback.Finish()...)
	}
	if a.short != nil {
		a.comp.Finish() // what it holds is not needed: the output is whole
		return a.short
	}
	return a.comp.Finish()
}

func (a *analysis) recover(step string) {
	if r := recover(); r != nil {
		a.noteFault(step, r)
	}
}

// noteFault records the first panic and switches to the fallback digest.
func (a *analysis) noteFault(step string, r any) {
	if a.fault == "" {
		a.fault = fmt.Sprintf("analysis failed while %s (%v)", step, r)
	}
	if a.fallback == nil {
		a.fallback = compress.NewGeneric(compress.Raw)
		for _, l := range a.head { // not yet seen by any compressor
			a.fallback.Line(l.text)
		}
		a.head = nil
	}
	if a.factory.Name == "" {
		a.factory = compress.Generic
	}
}
