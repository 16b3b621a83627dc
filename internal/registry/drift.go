package registry

import (
	"io"
	"os"

	"github.com/aymanbagabas/go-udiff"

	"github.com/freshctx/freshctx/internal/sha"
)

// drift counts the lines added and removed between the content a summary
// was written against (kept as a blob) and the file now. ok is false when
// either side cannot be read.
func (s *Service) drift(summaryBlob, rel string) (added, removed int, ok bool) {
	d, err := sha.Parse(summaryBlob)
	if err != nil || d.IsZero() {
		return 0, 0, false
	}
	rc, err := s.Store.OpenBlob(d)
	if err != nil {
		return 0, 0, false
	}
	before, err := io.ReadAll(io.LimitReader(rc, s.maxSize()+1))
	rc.Close()
	if err != nil {
		return 0, 0, false
	}
	after, err := os.ReadFile(s.WS.Abs(rel))
	if err != nil {
		return 0, 0, false
	}
	added, removed = lineChanges(string(before), string(after))
	return added, removed, true
}

// lineChanges counts inserted and deleted lines of a line diff.
func lineChanges(before, after string) (added, removed int) {
	edits := udiff.Lines(before, after)
	if len(edits) == 0 {
		return 0, 0
	}
	u, err := udiff.ToUnifiedDiff("a", "b", before, edits, 0)
	if err != nil {
		return 0, 0
	}
	for _, h := range u.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				added++
			case udiff.Delete:
				removed++
			}
		}
	}
	return added, removed
}
