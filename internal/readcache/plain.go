package readcache

import (
	"context"
	"fmt"

	"github.com/freshctx/freshctx/internal/workspace"
)

// Plain answers a read as a plain read tool would, without the store: the
// read cache's fall-back when its store cannot be used (corrupt, locked,
// on a full or read-only disk, refused outside a project). It serves the
// content, within the same limits and refusals as Read, with why nothing
// was cached as the reason, records nothing and vouches for nothing: its
// mode is always full.
func (s *Service) Plain(ctx context.Context, req ReadRequest, why string) (*ReadResult, error) {
	rel, rng, err := s.parseTarget(req.Target)
	if err != nil {
		return nil, err
	}
	if rng, err = withOffset(req, rng); err != nil {
		return nil, err
	}
	if why := workspace.Sensitive(rel); why != "" && !req.AllowSensitive {
		return nil, fmt.Errorf("%s is %s: not served without --allow-sensitive", rel, why)
	}
	f, err := s.load(ctx, rel)
	if err != nil {
		return nil, err
	}
	if sw := s.WS.SensitiveFile(rel, f.abs, f.content); sw != "" && !req.AllowSensitive {
		return nil, fmt.Errorf("%s is %s: not served without --allow-sensitive", rel, sw)
	}
	res := &ReadResult{Mode: ModeFull, Path: f.rel, TotalLines: f.lines, Reason: "not cached: " + why}
	if f.binary != "" {
		res.Text = fmt.Sprintf("[%s is a %s file of %d bytes; its content is not shown]", f.rel, f.binary, len(f.content))
		return res, nil
	}
	lines := splitLines(f.content)
	start, end := 1, len(lines)
	if rng.start != 0 {
		if rng.start > len(lines) {
			return nil, fmt.Errorf("%s has %d lines: line %d is past the end", f.rel, len(lines), rng.start)
		}
		start = rng.start
		if rng.end != 0 {
			end = min(rng.end, len(lines))
		}
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
