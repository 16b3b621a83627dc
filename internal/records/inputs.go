package records

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// ScopeGlobs turns globs the user typed, relative to the current folder,
// into root-relative ones, refusing those that leave the root or are not
// valid patterns.
func (s *Service) ScopeGlobs(globs []string) ([]string, error) {
	var out []string
	for _, g := range globs {
		if strings.TrimSpace(g) == "" {
			return nil, fmt.Errorf("--inputs: empty glob")
		}
		p := filepath.ToSlash(g)
		if filepath.IsAbs(g) {
			rel, err := filepath.Rel(s.WS.Root, g)
			if err != nil {
				return nil, fmt.Errorf("--inputs %s: %w", g, err)
			}
			p = filepath.ToSlash(rel)
		} else {
			p = path.Join(s.cwdRel(), p)
		}
		p = path.Clean(p)
		if p == ".." || strings.HasPrefix(p, "../") {
			return nil, fmt.Errorf("--inputs %s: outside the workspace root %s", g, s.WS.Root)
		}
		for _, seg := range strings.Split(p, "/") {
			if _, err := path.Match(seg, ""); err != nil {
				return nil, fmt.Errorf("--inputs %s: %w", g, err)
			}
		}
		if p == "." {
			p = "**"
		}
		out = append(out, p)
	}
	return out, nil
}
