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

func (w *world) read1(t *rapid.T, p, target string) *readcache.ReadResult {
	res, err := w.rc.Read(w.ctx, readcache.ReadRequest{Session: session, Target: target})
	if err != nil {
		return nil // absent, a directory, past the end: nothing delivered
	}
	now := w.read(p)
	if !now.ok {
		t.Fatalf("read %s answered %s but the test cannot read the file", target, res.Mode)
	}
	v := w.views[res.Path]
	if v == nil {
		v = &view{lines: map[int]string{}}
		w.views[res.Path] = v
	}
	why, apply := judge(v, res, splitLines(string(now.b)))
	if why != "" {
		t.Fatalf("read %s: %s answer (%s) is wrong: %s", target, res.Mode, res.Reason, why)
	}
	apply(v)
	w.shown[res.Path] = append(w.shown[res.Path], &answer{res: res, apply: apply})
	if err := w.rc.Delivered(w.ctx, res); err != nil {
		t.Fatalf("deliver: %v", err)
	}
	return res
}

// answer is one read the model was given, and what it did to the model's
// view of the file: kept so that a cancelled read can be taken out of it.
type answer struct {
	res     *readcache.ReadResult
	apply   func(*view)
	revoked bool
}

// readCancelled reads, the client cancels the call after its answer went
// out (the model never sees it), and reads the file again.
func (w *world) readCancelled(t *rapid.T) {
	p := rapid.SampledFrom(refs).Draw(t, "path")
	if res := w.read1(t, p, p); res != nil {
		w.revoke(t, res.Path, len(w.shown[res.Path])-1)
	}
	w.read1(t, p, p)
}

// cancelEarlier reads a file, then takes back a read of it answered before
// that one (a cancel that arrives late, after a later read leaned on it),
// and reads the file again.
func (w *world) cancelEarlier(t *rapid.T) {
	p := rapid.SampledFrom(refs).Draw(t, "path")
	if w.read1(t, p, p) == nil || len(w.shown[p]) < 2 {
		return
	}
	w.revoke(t, p, rapid.IntRange(0, len(w.shown[p])-2).Draw(t, "answer"))
	w.read1(t, p, p)
}

// revoke takes back the i-th answer about p, in freshctx and in the model:
// the model's view is what the answers left standing show, in order.
func (w *world) revoke(t *rapid.T, p string, i int) {
	a := w.shown[p][i]
	if err := w.rc.Revoke(w.ctx, a.res); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	a.revoked = true
	v := &view{lines: map[int]string{}}
	for _, a := range w.shown[p] {
		if !a.revoked {
			a.apply(v)
		}
	}
	w.views[p] = v
}

// judge checks an answer against the file now and what the model holds in
// v, and returns what the answer does to a view.
func judge(v *view, res *readcache.ReadResult, now []string) (string, func(*view)) {
	keep := func(*view) {}
	switch {
	case res.Mode == readcache.ModeUnchanged:
		if !v.whole || len(v.lines) != len(now) {
			return fmt.Sprintf("the model holds %d lines (whole: %v), the file has %d", len(v.lines), v.whole, len(now)), nil
		}
		for i, l := range now {
			if v.lines[i+1] != l {
				return fmt.Sprintf("line %d is %q, the model holds %q", i+1, l, v.lines[i+1]), nil
			}
		}
		return "", keep
	case res.Mode == readcache.ModeUnchangedRange:
		for i := res.Range[0]; i <= res.Range[1]; i++ {
			if i > len(now) || v.lines[i] != now[i-1] {
				return fmt.Sprintf("line %d differs from what the model holds", i), nil
			}
		}
		return "", keep
	case res.Mode == readcache.ModeDiff:
		if !v.whole {
			return "a diff against a file the model does not hold whole", nil
		}
		base := v.text()
		diff := res.Text[strings.IndexByte(res.Text, '\n')+1:]
		after, err := testdiff.Apply(diff, base)
		if err != nil || after != strings.Join(now, "") {
			return fmt.Sprintf("the diff does not turn what the model holds into the file (%v)", err), nil
		}
		// A diff shows the file only to a model holding its base.
		return "", func(v *view) {
			if v.whole && v.text() == base {
				v.set(now)
			} else {
				*v = view{lines: map[int]string{}}
			}
		}
	case res.Range == nil && res.Text == "" && len(now) == 0:
		return "", func(v *view) { v.set(now) } // an empty file, shown as empty
	case res.Range == nil:
		return "", func(v *view) { *v = view{lines: map[int]string{}} } // a notice: no content shown
	case res.Range[0] == 1 && res.Range[1] == len(now) && !strings.Contains(res.Text, "[truncated"):
		return "", func(v *view) { v.set(now) }
	}
	start, end := res.Range[0], res.Range[1]
	return "", func(v *view) {
		for i := start; i <= end; i++ {
			v.lines[i] = now[i-1]
		}
	}
}

// text is the whole file the view holds.
func (v *view) text() string {
	var b strings.Builder
	for i := 1; i <= len(v.lines); i++ {
		b.WriteString(v.lines[i])
	}
	return b.String()
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
	w.views, w.shown = map[string]*view{}, map[string][]*answer{}
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
