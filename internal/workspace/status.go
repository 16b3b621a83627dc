package workspace

import (
	"bytes"
	"fmt"
	"strings"
)

// Status is one parsed `git status --porcelain=v2 --branch -z`.
type Status struct {
	// Head is the commit HEAD points to, "" when there is none yet.
	Head string
	// Branch is the checked-out branch, "" when HEAD is detached.
	Branch string
	// Upstream is the configured upstream branch, if any.
	Upstream string
	// Ahead and Behind count the commits between the branch and its
	// upstream; StatusFiles counts them, Status does not (both 0).
	Ahead, Behind int

	entries map[string]Entry
	dirs    []Entry // untracked or ignored directories, listed with a trailing "/"
}

// Entry is one path git reported.
type Entry struct {
	// Kind is '1' (changed), '2' (renamed or copied), 'u' (unmerged),
	// '?' (untracked) or '!' (ignored).
	Kind byte
	// XY is the two-letter index/work-tree status for tracked entries.
	XY   string
	Path string
}

// Deleted reports whether the file is missing from the work tree. A staged
// deletion ("D.") alone is not enough: `git rm --cached` leaves the file.
func (e Entry) Deleted() bool { return len(e.XY) == 2 && e.XY[1] == 'D' }

// Entry returns what git reported for a root-relative path, if anything; a
// path under an untracked or ignored directory reports that directory. A
// path git did not report may be tracked and unmodified, or ignored (Status
// lists no ignored file): never evidence that a file is unchanged.
func (s *Status) Entry(rel string) (Entry, bool) {
	if e, ok := s.entries[rel]; ok {
		return e, true
	}
	for _, d := range s.dirs {
		if d.Path == "./" || strings.HasPrefix(rel, d.Path) {
			return d, true
		}
	}
	return Entry{}, false
}

// Deleted reports whether git lists rel as a tracked file missing from the
// work tree.
func (s *Status) Deleted(rel string) bool {
	e, ok := s.entries[rel]
	return ok && (e.Kind == '1' || e.Kind == 'u') && e.Deleted()
}

// Dirty reports whether any tracked file differs from HEAD or an untracked
// file exists. Ignored files do not count.
func (s *Status) Dirty() bool {
	for _, e := range s.entries {
		if e.Kind != '!' {
			return true
		}
	}
	for _, d := range s.dirs {
		if d.Kind != '!' {
			return true
		}
	}
	return false
}

// Entries returns every listed path and directory (directories end in "/").
func (s *Status) Entries() []Entry {
	out := make([]Entry, 0, len(s.entries)+len(s.dirs))
	for _, e := range s.entries {
		out = append(out, e)
	}
	return append(out, s.dirs...)
}

// parseStatus parses NUL-separated porcelain v2 output. fromGit maps the
// repository-relative paths git prints to root-relative ones, dropping paths
// outside the root.
func parseStatus(out []byte, fromGit func(string) (string, bool)) (*Status, error) {
	st := &Status{entries: map[string]Entry{}}
	fields := bytes.Split(out, []byte{0})
	for i := 0; i < len(fields); i++ {
		f := string(fields[i])
		if f == "" {
			continue
		}
		kind := f[0]
		var p string
		switch kind {
		case '#':
			if err := st.header(f); err != nil {
				return nil, err
			}
			continue
		case '1':
			p = afterFields(f, 8)
		case '2':
			p = afterFields(f, 9)
			i++ // the original path follows in its own field
		case 'u':
			p = afterFields(f, 10)
		case '?', '!':
			p = strings.TrimPrefix(f[1:], " ")
		default:
			return nil, fmt.Errorf("git status: unexpected line %q", f)
		}
		if p == "" {
			return nil, fmt.Errorf("git status: malformed line %q", f)
		}
		e := Entry{Kind: kind}
		if kind != '?' && kind != '!' {
			e.XY = f[2:4]
		}
		st.add(e, p, fromGit)
	}
	return st, nil
}

// add lists e at the top-relative path p git printed, if p is inside the
// root; a directory's path ends in "/" ("./" for the root itself).
func (st *Status) add(e Entry, p string, fromGit func(string) (string, bool)) {
	rel, ok := fromGit(p)
	if !ok {
		return
	}
	e.Path = rel
	if strings.HasSuffix(rel, "/") || rel == "." {
		if rel == "." {
			e.Path = "./"
		}
		st.dirs = append(st.dirs, e)
		return
	}
	st.entries[rel] = e
}

// afterFields returns what follows the first n space-separated fields.
func afterFields(line string, n int) string {
	rest := line
	for range n {
		i := strings.IndexByte(rest, ' ')
		if i < 0 {
			return ""
		}
		rest = rest[i+1:]
	}
	return rest
}

func (st *Status) header(line string) error {
	key, val, _ := strings.Cut(strings.TrimPrefix(line, "# "), " ")
	switch key {
	case "branch.oid":
		if val != "(initial)" {
			st.Head = val
		}
	case "branch.head":
		if val != "(detached)" {
			st.Branch = val
		}
	case "branch.upstream":
		st.Upstream = val
	case "branch.ab":
		if val == "+? -?" { // --no-ahead-behind: not counted
			return nil
		}
		var a, b int
		if _, err := fmt.Sscanf(val, "+%d -%d", &a, &b); err != nil {
			return fmt.Errorf("git status: bad branch.ab %q: %w", val, err)
		}
		st.Ahead, st.Behind = a, b
	}
	return nil
}

// NewStatus builds a Status from entries gathered without `git status`
// (callers that ask git narrower questions); directories end in "/".
func NewStatus(head, branch string, behind int, entries []Entry) *Status {
	st := &Status{Head: head, Branch: branch, Behind: behind, entries: map[string]Entry{}}
	for _, e := range entries {
		if strings.HasSuffix(e.Path, "/") {
			st.dirs = append(st.dirs, e)
		} else {
			st.entries[e.Path] = e
		}
	}
	return st
}
