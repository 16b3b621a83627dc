package readcache

import (
	"testing"

	"pgregory.net/rapid"
)

func TestPaintAndQueries(t *testing.T) {
	var p Picture
	p = p.Paint(Span{Start: 1, End: 100, Version: "A", Lines: 100, Entry: 1})
	if w, ok := p.Whole(); !ok || w.Version != "A" {
		t.Fatalf("whole after a full read: %v %v", w, ok)
	}
	p = p.Paint(Span{Start: 10, End: 20, Version: "B", Lines: 100, Entry: 2})
	if _, ok := p.Whole(); ok {
		t.Fatal("a range of another version must break the whole picture")
	}
	if s, ok := p.Covers(10, 20); !ok || s.Version != "B" {
		t.Fatalf("covers 10-20: %v %v", s, ok)
	}
	if _, ok := p.Covers(5, 15); ok {
		t.Fatal("5-15 spans two versions")
	}
	p = p.Erase(50, 60)
	if _, ok := p.Covers(40, 55); ok {
		t.Fatal("erased lines are not covered")
	}
	p = p.Paint(Span{Start: 1, End: 100, Version: "A", Lines: 100, Entry: 3})
	if w, ok := p.Whole(); !ok || w.Entry != 3 {
		t.Fatalf("re-anchored: %v %v", w, ok)
	}
}

func TestTruncatedReadIsNotWhole(t *testing.T) {
	p := Picture{}.Paint(Span{Start: 1, End: 2000, Version: "A", Lines: 5000, Entry: 1})
	if _, ok := p.Whole(); ok {
		t.Fatal("2,000 lines of 5,000 are not the whole file")
	}
	if _, ok := p.Covers(2100, 2200); ok {
		t.Fatal("lines never delivered are not covered")
	}
	if _, ok := p.Covers(100, 200); !ok {
		t.Fatal("delivered lines are covered")
	}
}

// TestPictureMatchesLineModel paints and erases at random and checks every
// query against a plain per-line model of what the model was shown.
func TestPictureMatchesLineModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		const n = 30
		model := make([]string, n+1) // model[i] = version shown for line i, "" unseen
		var p Picture
		for step := range rapid.IntRange(1, 12).Draw(rt, "steps") {
			a := rapid.IntRange(1, n).Draw(rt, "a")
			b := rapid.IntRange(a, n).Draw(rt, "b")
			if rapid.Bool().Draw(rt, "erase") {
				p = p.Erase(a, b)
				for i := a; i <= b; i++ {
					model[i] = ""
				}
				continue
			}
			v := rapid.SampledFrom([]string{"A", "B"}).Draw(rt, "v")
			p = p.Paint(Span{Start: a, End: b, Version: v, Lines: n, Entry: int64(step)})
			for i := a; i <= b; i++ {
				model[i] = v
			}
		}
		a := rapid.IntRange(1, n).Draw(rt, "qa")
		b := rapid.IntRange(a, n).Draw(rt, "qb")
		s, ok := p.Covers(a, b)
		same := model[a] != ""
		for i := a; i <= b; i++ {
			same = same && model[i] == model[a]
		}
		if ok != same || (ok && s.Version != model[a]) {
			rt.Fatalf("Covers(%d,%d) = %v %v; model %v", a, b, s, ok, model[a:b+1])
		}
		w, whole := p.Whole()
		all := model[1] != ""
		for i := 1; i <= n; i++ {
			all = all && model[i] == model[1]
		}
		if whole != all || (whole && w.Version != model[1]) {
			rt.Fatalf("Whole = %v %v; model %v", w, whole, model[1:])
		}
	})
}
