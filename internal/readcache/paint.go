package readcache

import "slices"

// Span is a run of lines the model was shown, all from one version of the
// file. Lines are 1-based and inclusive, numbered as in that version.
type Span struct {
	Start   int    `json:"s"`
	End     int    `json:"e"`
	Version string `json:"v"`
	Lines   int    `json:"n"`  // lines of that version
	Entry   int64  `json:"id"` // the read that showed them
	// Edited: the model changed the file itself since it was shown these
	// lines (its Edit or Write), so what it believes of them is its own
	// change, not them: no note may stand for them, while a diff from
	// them, which the model applies to what it was shown, still may.
	Edited bool `json:"ed,omitempty"`
}

// Picture is what the model believes one file holds: for each line
// position, the latest span that showed it. Spans do not overlap and are
// sorted by Start. A later view of a line replaces an earlier one: the
// model's latest view wins.
type Picture []Span

// Paint records that the model was shown lines [s.Start, s.End] of s.Version.
func (p Picture) Paint(s Span) Picture {
	out := p.Erase(s.Start, s.End)
	i, _ := slices.BinarySearchFunc(out, s.Start, func(x Span, start int) int { return x.Start - start })
	return slices.Insert(out, i, s)
}

// Erase forgets lines [start, end]: what a refresh of that range does.
func (p Picture) Erase(start, end int) Picture {
	var out Picture
	for _, x := range p {
		if x.End < start || x.Start > end {
			out = append(out, x)
			continue
		}
		if x.Start < start {
			left := x
			left.End = start - 1
			out = append(out, left)
		}
		if x.End > end {
			right := x
			right.Start = end + 1
			out = append(out, right)
		}
	}
	return out
}

// MarkEdited records that the model changed the file after it was shown
// every span of p.
func (p Picture) MarkEdited() Picture {
	out := slices.Clone(p)
	for i := range out {
		out[i].Edited = true
	}
	return out
}

// Whole reports whether the model believes it knows the whole file as one
// version: every line of the version is shown by a span of that version,
// and no line past its end is in the picture (the model would believe the
// file longer). It returns that version's span data.
func (p Picture) Whole() (Span, bool) {
	if len(p) == 0 {
		return Span{}, false
	}
	v := p[0]
	if v.Start != 1 {
		return Span{}, false
	}
	next := 1
	for _, x := range p {
		if x.Start > v.Lines {
			return Span{}, false // the model holds lines past this version's end
		}
		if x.Version != v.Version || x.Start != next {
			return Span{}, false
		}
		next = x.End + 1
	}
	if next <= v.Lines {
		return Span{}, false
	}
	latest, edited := v, false
	for _, x := range p {
		if x.Version == v.Version && x.Entry > latest.Entry {
			latest = x
		}
		edited = edited || x.Edited
	}
	return Span{Start: 1, End: v.Lines, Version: v.Version, Lines: v.Lines, Entry: latest.Entry, Edited: edited}, true
}

// Covers reports whether lines [start, end] were all shown from a single
// version, and which.
func (p Picture) Covers(start, end int) (Span, bool) {
	next, version, edited := start, "", false
	var last Span
	for _, x := range p {
		if x.End < start {
			continue
		}
		if x.Start > next {
			return Span{}, false // a hole
		}
		if version != "" && x.Version != version {
			return Span{}, false // mixed versions
		}
		version, last = x.Version, x
		edited = edited || x.Edited
		next = x.End + 1
		if next > end {
			return Span{Start: start, End: end, Version: version, Lines: x.Lines, Entry: last.Entry, Edited: edited}, true
		}
	}
	return Span{}, false
}
