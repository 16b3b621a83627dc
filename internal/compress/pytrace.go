package compress

import (
	"fmt"
	"github.com/freshctx/freshctx/internal/rx"
	"strings"
)

// pyTraces sits in front of the line engine for Python output and decides
// about stack frames with the whole trace in view, since Python prints the
// innermost frame, where it broke, last:
//
//   - A plain traceback ("Traceback (most recent call last):" up to the
//     exception line) keeps its outermost workspace frame and its last
//     pyKeepInner workspace frames, each with the code and caret lines under
//     it; library frames (the standard library, site-packages, "<frozen …>")
//     are Detail, kept only in an output short enough to keep whole.
//   - A pytest failure section (the lines up to a "path.py:N: Exception"
//     location) that ends in a library file is Detail but for its E lines;
//     a short "path.py:N: in func" frame of a library is Detail with its code.
type pyTraces struct {
	engine *engine

	trace   []string // a plain traceback being read; nil when none
	failed  failedGroup
	section []string // pytest lines since the last location or separator
	libCode bool     // the lines below a library's "in func" frame are its code
	held    int      // bytes of trace and section
}

const (
	// pyKeepInner is how many innermost workspace frames a traceback keeps.
	pyKeepInner = 3
	// maxTrace and maxTraceBytes bound a traceback or a pytest section
	// held in memory; a longer one goes out as read.
	maxTrace      = 4000
	maxTraceBytes = 1 << 20
)

var (
	pyTraceFrame = rx.MustCompile(`^\s+File "([^"]+)", line (\d+)`)
	// pyLocation is pytest's "path.py:N: Exception" or "path.py:N: " (the
	// long form, after the code) and "path.py:N: in func" (the short form,
	// before it).
	pyLocation = rx.MustCompile(`^(\S+\.py):(\d+): ?(in \S+|\w[\w.]*)?$`)
	// pyException is the line that ends a traceback, whatever the
	// exception is named: "json.decoder.JSONDecodeError: …",
	// "KeyboardInterrupt", "mypkg.Refused: …".
	pyException = rx.MustCompile(`^[A-Za-z_][\w.]*(:|$)`)
	pySeparator = rx.MustCompile(`^(_ )+_?$|^_{3,} .+ _{3,}$|^=+ .* =+$`)
)

func newPyTraces(e *engine) *pyTraces {
	return &pyTraces{engine: e}
}

func (p *pyTraces) Line(text string) { p.PreparedLine(Prepared{Clean: Clean(text)}) }

// PreparedLine implements PreparedLiner; what the search for references
// found is not used: tracebacks are held and judged whole.
func (p *pyTraces) PreparedLine(pl Prepared) {
	text := pl.Clean
	if p.trace == nil && pyFailedParam.MatchString(text) {
		if !p.failed.add(text) {
			p.flushFailed()
			p.failed.add(text)
		}
		return
	}
	p.flushFailed()
	if p.trace != nil {
		p.traceLine(text)
		return
	}
	if strings.HasPrefix(text, "Traceback (most recent call last):") {
		p.flushSection()
		p.trace = []string{text}
		p.held += len(text)
		return
	}
	p.pytestLine(text)
}

// traceLine takes a line of a plain traceback: indented lines are its
// frames, the first unindented one is the exception that ends it.
func (p *pyTraces) traceLine(text string) {
	if strings.HasPrefix(text, " ") && len(p.trace) < maxTrace && p.held+len(text) <= maxTraceBytes {
		p.trace = append(p.trace, text)
		p.held += len(text)
		return
	}
	p.emitTrace()
	if pyException.MatchString(text) {
		p.engine.lineAs(text, Error) // what was raised: the point of it all
		return
	}
	p.Line(text)
}

// pyFrameLines is one frame of a traceback: its File line and the code and
// caret lines under it.
type pyFrameLines struct {
	lines []string
	lib   bool
}

func (p *pyTraces) emitTrace() {
	trace := p.trace
	p.trace = nil
	p.held = 0
	p.engine.lineAs(trace[0], Error)
	var frames []pyFrameLines
	for _, l := range trace[1:] {
		if m := pyTraceFrame.FindStringSubmatch(l); m != nil {
			frames = append(frames, pyFrameLines{lines: []string{l}, lib: isPythonLib(m[1])})
			continue
		}
		if len(frames) == 0 {
			p.engine.lineAs(l, Auto)
			continue
		}
		f := &frames[len(frames)-1]
		f.lines = append(f.lines, l)
	}
	keep := pyKeptFrames(frames)
	omitted := 0
	for i, f := range frames {
		if !f.lib && !keep[i] {
			omitted++
			continue
		}
		p.omitFrames(omitted)
		omitted = 0
		c := Ref
		if f.lib {
			c = Detail
		}
		for _, l := range f.lines {
			p.engine.lineAs(l, c)
		}
	}
	p.omitFrames(omitted)
}

// omitFrames says that n workspace frames between the kept ones are left out.
func (p *pyTraces) omitFrames(n int) {
	switch {
	case n == 1:
		p.engine.lineAs("  … [1 frame omitted]", Marker)
	case n > 1:
		p.engine.lineAs(fmt.Sprintf("  … [%d frames omitted]", n), Marker)
	}
}

// pyKeptFrames picks the workspace frames a traceback keeps: the outermost
// and the pyKeepInner innermost.
func pyKeptFrames(frames []pyFrameLines) []bool {
	keep := make([]bool, len(frames))
	first := true
	for i, f := range frames {
		if !f.lib && first {
			keep[i], first = true, false
		}
	}
	n := 0
	for i := len(frames) - 1; i >= 0 && n < pyKeepInner; i-- {
		if !frames[i].lib {
			keep[i] = true
			n++
		}
	}
	return keep
}

// pytestLine takes a line outside plain tracebacks: pytest's own report.
func (p *pyTraces) pytestLine(text string) {
	if m := location(text); m != nil {
		lib := isPythonLib(m[1])
		if strings.HasPrefix(m[3], "in ") {
			p.flushSection()
			p.libCode = lib
			p.engine.lineAs(text, libClass(lib, Ref))
			return
		}
		p.flushSectionAs(lib)
		p.engine.lineAs(text, libClass(lib, Ref))
		return
	}
	if p.libCode && strings.HasPrefix(text, "    ") {
		p.engine.lineAs(text, Detail)
		return
	}
	p.libCode = false
	if pySeparator.MatchString(text) {
		p.flushSection()
		p.engine.lineAs(text, Auto)
		return
	}
	if len(p.section) >= maxTrace || p.held+len(text) > maxTraceBytes {
		p.flushSection()
	}
	p.section = append(p.section, text)
	p.held += len(text)
}

// location is pyLocation's submatches of text. Only a line holding ".py:"
// and a digit is tried, as every match does (pytest -v's "x.py::test"
// lines do not): the expression's run on each line of pytest's report was
// half of this compressor's time.
func location(text string) []string {
	for rest := text; ; {
		i := strings.Index(rest, ".py:")
		if i < 0 {
			return nil
		}
		rest = rest[i+len(".py:"):]
		if rest != "" && '0' <= rest[0] && rest[0] <= '9' {
			return pyLocation.FindStringSubmatch(text)
		}
	}
}

func libClass(lib bool, otherwise Class) Class {
	if lib {
		return Detail
	}
	return otherwise
}

func (p *pyTraces) flushSection() { p.flushSectionAs(false) }

// flushSectionAs sends out the held pytest lines; those of a library's
// section are Detail but for the E lines that say what was raised.
func (p *pyTraces) flushSectionAs(lib bool) {
	for _, l := range p.section {
		c := Auto
		if lib && !strings.HasPrefix(l, "E ") {
			c = Detail
		}
		p.engine.lineAs(l, c)
	}
	p.section = p.section[:0]
	p.held = 0
}

// flushFailed sends out a group of FAILED lines, after anything held.
func (p *pyTraces) flushFailed() {
	if p.failed.base != "" {
		p.flushSection()
		p.failed.flush(p.engine)
	}
}

func (p *pyTraces) Finish() []Kept {
	p.flushFailed()
	if p.trace != nil {
		p.emitTrace()
	}
	p.flushSection()
	return p.engine.Finish()
}

// failedGroup joins the short test summary's lines of one parametrized test
// that failed with the same message: "FAILED t.py::test_x[1] - KeyError: 'EU'
// (also [5], [10])". Every test and message is still named.
type failedGroup struct {
	base, msg string   // "FAILED t.py::test_x", " - KeyError: 'EU'"
	params    []string // "[1]", "[5]"
}

var pyFailedParam = rx.MustCompile(`^((?:FAILED|ERROR) \S+?)(\[[^\]]*\])( - .*)?$`)

// add takes a line into the group if it is a parametrized FAILED line; a
// line of another test or message first sends the group out.
func (f *failedGroup) add(line string) bool {
	m := pyFailedParam.FindStringSubmatch(line)
	if m == nil {
		return false
	}
	if f.base != "" && (m[1] != f.base || m[3] != f.msg) {
		return false
	}
	f.base, f.msg = m[1], m[3]
	f.params = append(f.params, m[2])
	return true
}

func (f *failedGroup) flush(e *engine) {
	if f.base == "" {
		return
	}
	line := f.base + f.params[0] + f.msg
	if len(f.params) > 1 {
		line += " (also " + strings.Join(f.params[1:], ", ") + ")"
	}
	e.lineAs(line, Auto)
	f.base, f.msg, f.params = "", "", nil
}
