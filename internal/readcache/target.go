package readcache

import (
	"os"
	"strconv"

	"github.com/freshctx/freshctx/internal/rx"
)

// RangeError is a read whose scope cannot be a range of lines: a spec that
// is neither PATH:N nor PATH:N-M, N past M, a range given twice, or an
// offset or limit below zero. It is a mistake in the request, not a failure
// to read.
type RangeError struct {
	Given string // the spec or flags as given
	Want  string // what would have been a range
}

func (e *RangeError) Error() string { return e.Given + ": want " + e.Want }

// lineRange is a requested scope: start 0 means the whole file; end 0 means
// to the end.
type lineRange struct{ start, end int }

var (
	rangeSuffix = rx.MustCompile(`^(.*):(\d+)(?:-(\d+))?$`)
	// badRange is a range that is neither :N nor :N-M (":3-", ":2-x").
	badRange = rx.MustCompile(`^.+:\d+-[^/:]*$`)
)

// parseTarget splits "PATH[:N-M]" (1-based, inclusive; ":N" to the end)
// and makes the path root-relative. A spec that names a file as it stands,
// where PATH alone names none, is that file, whole.
func (s *Service) parseTarget(spec string) (string, lineRange, error) {
	p, r := spec, lineRange{}
	if badRange.MatchString(spec) && rangeSuffix.FindStringSubmatch(spec) == nil && !s.exists(spec) {
		return "", r, &RangeError{spec, "PATH:N-M (lines N to M) or PATH:N (line N to the end)"}
	}
	// A file may be called "notes:3-4": when it exists and "notes" does
	// not, the spec is its name.
	if m := rangeSuffix.FindStringSubmatch(spec); m != nil && (!s.exists(spec) || s.exists(m[1])) {
		p = m[1]
		r.start, _ = strconv.Atoi(m[2])
		if m[3] != "" {
			r.end, _ = strconv.Atoi(m[3])
		}
		if r.start < 1 || (r.end != 0 && r.end < r.start) {
			return "", r, &RangeError{spec, "PATH:N-M with 1 ≤ N ≤ M"}
		}
	}
	rel, err := s.WS.Rel(p, s.Cwd)
	if err != nil {
		return "", r, err
	}
	return rel, r, nil
}

// exists reports whether spec names a file as it stands (a file may be
// called "notes:3-4").
func (s *Service) exists(spec string) bool {
	rel, err := s.WS.Rel(spec, s.Cwd)
	if err != nil {
		return false
	}
	_, err = os.Lstat(s.WS.Abs(rel))
	return err == nil
}
