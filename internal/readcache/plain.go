package readcache

import (
	"context"
	"fmt"
)

// Plain answers a read as a plain read tool would, without the store: the
// read cache's fall-back when its store cannot be used (corrupt, locked,
// on a full or read-only disk, refused outside a project). It serves the
// content, within the same limits and refusals as Read, with why nothing
// was cached as the reason, records nothing and vouches for nothing: its
// mode is always full.
func (s *Service) Plain(ctx context.Context, req ReadRequest, why string) (*ReadResult, error) {
	f, rng, err := s.open(ctx, req)
	if err != nil {
		return nil, err
	}
	res := &ReadResult{Mode: ModeFull, Path: f.rel, TotalLines: f.lines, Reason: "not cached: " + why}
	if f.binary != "" {
		res.Text = fmt.Sprintf("[%s is a %s file of %d bytes; its content is not shown]", f.rel, f.binary, len(f.content))
		return res, nil
	}
	lines := splitLines(f.content)
	start, end, err := f.bounds(lines, rng)
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return res, nil
	}
	shown, cut := s.fit(lines, start, end)
	if shown == start-1 { // one line over the limit: its start, as Read shows it
		part := lines[start-1][:s.maxBytes()]
		res.Text = fmt.Sprintf("%6d\t%s\n[line %d cut: %d of its %d bytes shown]", start, part, start, len(part), len(lines[start-1]))
		return res, nil
	}
	res.Range = &[2]int{start, shown}
	res.Text = numbered(lines, start, shown)
	if cut {
		res.Text += fmt.Sprintf("\n[truncated: lines %d-%d of %d shown; continue with %s:%d-]", start, shown, f.lines, f.rel, shown+1)
	}
	if f.encoding != "" {
		noteEncoding(res, f)
	}
	return res, nil
}
