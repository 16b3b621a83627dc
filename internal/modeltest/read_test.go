package modeltest

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/testdiff"
)

// view is exactly what the model was shown of one file: lines by number,
// whether it was shown the whole file (then lines 1 to wholeLines are all
// of it; a range read of a later version may add lines past them), and
// the lines it changed itself since it was shown them (its edit): it
// believes its change there, so no note may stand for them, while a diff
// from what it was shown may.
type view struct {
	lines      map[int]string
	edited     map[int]bool
	whole      bool
	wholeLines int // the length of the file it holds whole
}

func newView() *view { return &view{lines: map[int]string{}, edited: map[int]bool{}} }

// session is the read-cache session the model starts in.
const session = "model"

// readOp reads a whole file, or a range placed by a fraction of the file's
// length, or the lines past what the model holds (the tail a grown file
// added).
func (w *world) readOp(t *rapid.T) {
	p, target := w.drawTarget(t)
	w.read1(t, p, target)
}

// drawTarget draws a file and what of it to read.
func (w *world) drawTarget(t *rapid.T) (p, target string) {
	p = rapid.SampledFrom(w.refs).Draw(t, "path")
	n := len(splitLines(string(w.read(p).b)))
	target = p
	switch rapid.SampledFrom([]string{"whole", "range", "tail"}).Draw(t, "scope") {
	case "range":
		start := 1 + rapid.IntRange(0, 99).Draw(t, "start %")*n/100
		target = fmt.Sprintf("%s:%d-%d", p, start, start+rapid.IntRange(0, 20).Draw(t, "len"))
	case "tail":
		if v := w.view(p); len(v.lines) > 0 {
			target = fmt.Sprintf("%s:%d", p, len(v.lines)+1)
		}
	}
	return p, target
}

// read1 reads and delivers the answer at once.
func (w *world) read1(t *rapid.T, p, target string) *readcache.ReadResult {
	a := w.answer(t, p, target)
	if a == nil {
		return nil
	}
	w.deliver(t, a)
	return a.res
}

// answer reads target (of file p) and judges the answer against the file
// now and what the model holds; the answer waits for its delivery. A read
// of the file still waiting is delivered first: of two reads of one file
// answered at once, which the model holds is the order it takes the
// results in, which the client decides (TestClaudeCodeParallelReads meets
// that with the real client), so the model keeps to one at a time.
func (w *world) answer(t *rapid.T, p, target string) *answer {
	if a := w.waitingRead(p); a != nil {
		w.deliver(t, a)
	}
	res, err := w.rc.Read(w.ctx, readcache.ReadRequest{Session: w.sess, Target: target})
	if err != nil {
		return nil // absent, a directory, past the end: nothing delivered
	}
	now := w.read(p)
	if !now.ok {
		t.Fatalf("read %s answered %s but the test cannot read the file", target, res.Mode)
	}
	if res.Path != p {
		if a := w.waitingRead(res.Path); a != nil {
			t.Fatalf("read %s answered about %s, which a read (entry %d) waits on", target, res.Path, a.res.Entry)
		}
	}
	why, apply := judge(w.view(res.Path), res, splitLines(shown(now.b)))
	if why != "" {
		t.Fatalf("read %s: %s answer (%s) is wrong: %s", target, res.Mode, res.Reason, why)
	}
	a := &answer{res: res, path: res.Path, apply: apply, waiting: true}
	w.add(a)
	w.waiting = append(w.waiting, a)
	return a
}

// deliver tells freshctx that a waiting answer reached the model, which
// now holds what it showed, in the order the answers were made.
func (w *world) deliver(t *rapid.T, a *answer) {
	if err := w.rc.Delivered(w.ctx, a.res); err != nil {
		t.Fatalf("deliver: %v", err)
	}
	a.waiting = false
	w.waiting = slices.DeleteFunc(w.waiting, func(x *answer) bool { return x == a })
}

// waitingRead is the read of p that waits for its delivery, if any.
func (w *world) waitingRead(p string) *answer {
	for _, a := range w.waiting {
		if a.res.Path == p {
			return a
		}
	}
	return nil
}

// readLater reads a file and holds the answer back, as an agent's tool
// calls made at once do: other steps (edits, other reads, deliveries in
// any order) come before it reaches the model.
func (w *world) readLater(t *rapid.T) {
	p, target := w.drawTarget(t)
	w.answer(t, p, target)
}

// deliverWaiting delivers one of the waiting answers, in any order.
func (w *world) deliverWaiting(t *rapid.T) {
	if len(w.waiting) > 0 {
		w.deliver(t, rapid.SampledFrom(w.waiting).Draw(t, "waiting read"))
	}
}

// cancelWaiting takes back a waiting answer: the client cancelled the call
// and the model never sees it.
func (w *world) cancelWaiting(t *rapid.T) {
	if len(w.waiting) == 0 {
		return
	}
	a := rapid.SampledFrom(w.waiting).Draw(t, "waiting read")
	if err := w.rc.Revoke(w.ctx, a.res); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	a.waiting, a.revoked = false, true
	w.waiting = slices.DeleteFunc(w.waiting, func(x *answer) bool { return x == a })
}

// modelEdits is the model changing a file itself (its Edit or Write): the
// bytes change and the client tells freshctx, which may come while a read
// of the file waits for its delivery.
func (w *world) modelEdits(t *rapid.T) {
	p := rapid.SampledFrom(w.files).Draw(t, "path")
	if c := w.read(p); c.ok {
		w.before[p] = string(c.b)
	}
	w.write(p, rapid.SampledFrom(w.texts).Draw(t, "content"))
	if err := w.rc.Edited(w.ctx, w.sess, p); err != nil {
		t.Fatalf("edited: %v", err)
	}
	w.event(p, func(v *view) {
		for i := range v.lines {
			v.edited[i] = true
		}
	})
}

// refreshOp makes the next read of a file, or of some of its lines,
// baseline: the model's view of them is forgotten.
func (w *world) refreshOp(t *rapid.T) {
	p := rapid.SampledFrom(w.refs).Draw(t, "path")
	spec, start, end := p, 1, int(^uint(0)>>1)
	if rapid.Bool().Draw(t, "lines") {
		start = rapid.IntRange(1, 40).Draw(t, "from")
		end = start + rapid.IntRange(0, 10).Draw(t, "more")
		spec = fmt.Sprintf("%s:%d-%d", p, start, end)
	}
	if _, err := w.rc.Refresh(w.ctx, w.sess, spec); err != nil {
		return // a path outside the root, a range refused: nothing changed
	}
	w.event(p, func(v *view) {
		for i := range v.lines {
			if i >= start && i <= end {
				delete(v.lines, i)
				delete(v.edited, i)
				// A line past the file it holds whole came from a range
				// read of another version: forgetting it leaves the
				// whole file held.
				v.whole = v.whole && i > v.wholeLines
			}
		}
	})
}

// forgetOp is a read of a file freshctx cannot vouch for (a client's read
// it could not match to the bytes): what the model holds is unknown.
func (w *world) forgetOp(t *rapid.T) {
	p := rapid.SampledFrom(w.refs).Draw(t, "path")
	if err := w.rc.Forget(w.ctx, w.sess, p); err != nil {
		t.Fatalf("forget: %v", err)
	}
	w.event(p, func(v *view) { *v = *newView() })
}

// readCancelled reads, the client cancels the call after its answer went
// out (the model never sees it), and reads the file again.
func (w *world) readCancelled(t *rapid.T) {
	p := rapid.SampledFrom(w.refs).Draw(t, "path")
	if a := w.answer(t, p, p); a != nil {
		w.deliver(t, a)
		w.revoke(t, a)
	}
	w.read1(t, p, p)
}

// cancelEarlier reads a file, then takes back a read of it answered before
// that one (a cancel that arrives late, after a later read leaned on it),
// and reads the file again.
func (w *world) cancelEarlier(t *rapid.T) {
	p := rapid.SampledFrom(w.refs).Draw(t, "path")
	res := w.read1(t, p, p)
	if res == nil {
		return
	}
	var earlier []*answer
	for _, a := range w.nodes {
		if a.res != nil && a.res.Path == res.Path && a.res.Entry < res.Entry && !a.waiting && !a.revoked {
			earlier = append(earlier, a)
		}
	}
	if len(earlier) == 0 {
		return
	}
	w.revoke(t, rapid.SampledFrom(earlier).Draw(t, "answer"))
	w.read1(t, p, p)
}

// revoke takes back a delivered answer, in freshctx and in the model: the
// model's view is what the answers left standing show, in order.
func (w *world) revoke(t *rapid.T, a *answer) {
	if err := w.rc.Revoke(w.ctx, a.res); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	a.revoked = true
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
		if len(v.edited) > 0 {
			return "the model changed the file itself since it was shown it", nil
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
			if v.edited[i] {
				return fmt.Sprintf("the model changed line %d itself since it was shown it", i), nil
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
				*v = *newView()
			}
		}
	case res.Range == nil && res.Text == "" && len(now) == 0:
		return "", func(v *view) { v.set(now) } // an empty file, shown as empty
	case res.Range == nil:
		return "", func(v *view) { *v = *newView() } // a notice: no content shown
	case res.Range[0] == 1 && res.Range[1] == len(now) && !strings.Contains(res.Text, "[truncated"):
		return "", func(v *view) { v.set(now) }
	}
	start, end := res.Range[0], res.Range[1]
	return "", func(v *view) {
		for i := start; i <= end; i++ {
			v.lines[i] = now[i-1]
			delete(v.edited, i)
		}
		// Lines read to the file's end that complete what the model holds
		// make it hold the whole file, as reads of a file in parts do.
		if !v.whole && end == len(now) && v.holdsExactly(len(now)) {
			v.whole, v.wholeLines = true, len(now)
		}
	}
}

// holdsExactly reports whether the view holds lines 1 to n and no other.
func (v *view) holdsExactly(n int) bool {
	if len(v.lines) != n {
		return false
	}
	for i := 1; i <= n; i++ {
		if _, ok := v.lines[i]; !ok {
			return false
		}
	}
	return true
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
	*v = *newView()
	v.whole, v.wholeLines = true, len(now)
	for i, l := range now {
		v.lines[i+1] = l
	}
}

// shown is a file's text as the model is shown it: bytes that are not
// UTF-8 decoded as Latin-1, one character a byte (a binary file is shown
// a notice, which shows no lines).
func shown(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
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
