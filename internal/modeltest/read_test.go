package modeltest

import (
	"fmt"
	"strings"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/testdiff"
)

// view is exactly what the model was shown of one file: lines by number,
// and whether it was shown the whole file (then lines is all of it).
type view struct {
	lines map[int]string
	whole bool
}

const session = "model"

// readOp reads a whole file, or a range placed by a fraction of the file's
// length, or the lines past what the model holds (the tail a grown file
// added).
func (w *world) readOp(t *rapid.T) {
	p := rapid.SampledFrom(refs).Draw(t, "path")
	n := len(splitLines(string(w.read(p).b)))
	target := p
	switch rapid.SampledFrom([]string{"whole", "range", "tail"}).Draw(t, "scope") {
	case "range":
		start := 1 + rapid.IntRange(0, 99).Draw(t, "start %")*n/100
		target = fmt.Sprintf("%s:%d-%d", p, start, start+rapid.IntRange(0, 20).Draw(t, "len"))
	case "tail":
		if v := w.views[p]; v != nil {
			target = fmt.Sprintf("%s:%d", p, len(v.lines)+1)
		}
	}
	w.read1(t, p, target)
}

func (w *world) read1(t *rapid.T, p, target string) {
	res, err := w.rc.Read(w.ctx, readcache.ReadRequest{Session: session, Target: target})
	if err != nil {
		return // absent, a directory, past the end: nothing delivered
	}
	now := w.read(p)
	if !now.ok {
		t.Fatalf("read %s answered %s but the test cannot read the file", target, res.Mode)
	}
	if why := w.judge(res, splitLines(string(now.b))); why != "" {
		t.Fatalf("read %s: %s answer (%s) is wrong: %s", target, res.Mode, res.Reason, why)
	}
	if err := w.rc.Delivered(w.ctx, res); err != nil {
		t.Fatalf("deliver: %v", err)
	}
}

// judge checks an answer against the file now and what the model holds,
// and updates the model as the answer does.
func (w *world) judge(res *readcache.ReadResult, now []string) string {
	v := w.views[res.Path]
	if v == nil {
		v = &view{lines: map[int]string{}}
		w.views[res.Path] = v
	}
	switch {
	case res.Mode == readcache.ModeUnchanged:
		if !v.whole || len(v.lines) != len(now) {
			return fmt.Sprintf("the model holds %d lines (whole: %v), the file has %d", len(v.lines), v.whole, len(now))
		}
		for i, l := range now {
			if v.lines[i+1] != l {
				return fmt.Sprintf("line %d is %q, the model holds %q", i+1, l, v.lines[i+1])
			}
		}
	case res.Mode == readcache.ModeUnchangedRange:
		for i := res.Range[0]; i <= res.Range[1]; i++ {
			if i > len(now) || v.lines[i] != now[i-1] {
				return fmt.Sprintf("line %d differs from what the model holds", i)
			}
		}
	case res.Mode == readcache.ModeDiff:
		if !v.whole {
			return "a diff against a file the model does not hold whole"
		}
		var before strings.Builder
		for i := 1; i <= len(v.lines); i++ {
			before.WriteString(v.lines[i])
		}
		diff := res.Text[strings.IndexByte(res.Text, '\n')+1:]
		after, err := testdiff.Apply(diff, before.String())
		if err != nil || after != strings.Join(now, "") {
			return fmt.Sprintf("the diff does not turn what the model holds into the file (%v)", err)
		}
		v.set(now)
	case res.Range == nil && res.Text == "" && len(now) == 0:
		v.set(now) // an empty file, shown as empty
	case res.Range == nil:
		*v = view{lines: map[int]string{}} // a notice: no content shown
	case res.Range[0] == 1 && res.Range[1] == len(now) && !strings.Contains(res.Text, "[truncated"):
		v.set(now)
	default:
		for i := res.Range[0]; i <= res.Range[1]; i++ {
			v.lines[i] = now[i-1]
		}
	}
	return ""
}

func (v *view) set(now []string) {
	v.lines, v.whole = map[int]string{}, true
	for i, l := range now {
		v.lines[i+1] = l
	}
}

func (w *world) compact() {
	if _, err := w.rc.Compact(w.ctx, session); err != nil {
		w.t.Fatalf("compact: %v", err)
	}
	w.views = map[string]*view{}
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	ls := strings.SplitAfter(s, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}
