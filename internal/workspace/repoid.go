package workspace

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// The repository id cache: lines "HEAD ID" in <git common dir>/freshctx/
// repo-id, latest first, at most maxRepoIDs of them (switching between a
// few branches never walks history again). A HEAD always has the same id,
// so an entry never goes stale; a damaged file is ignored.

const maxRepoIDs = 16

type repoIDEntry struct{ head, id string }

type repoIDs []repoIDEntry

func repoIDFile(gitDir string) string { return filepath.Join(gitDir, "freshctx", "repo-id") }

func readRepoIDs(gitDir string) repoIDs {
	f, err := os.Open(repoIDFile(gitDir))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out repoIDs
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < maxRepoIDs {
		head, id, ok := strings.Cut(sc.Text(), " ")
		if ok && isHash(head) && (id == "" || isHash(id)) {
			out = append(out, repoIDEntry{head, id})
		}
	}
	return out
}

func isHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func (c repoIDs) lookup(head string) (string, bool) {
	for _, e := range c {
		if e.head == head {
			return e.id, true
		}
	}
	return "", false
}

func (c repoIDs) latest() repoIDEntry {
	if len(c) == 0 {
		return repoIDEntry{}
	}
	return c[0]
}

func (c *repoIDs) add(head, id string) {
	*c = append(repoIDs{{head, id}}, *c...)
	if len(*c) > maxRepoIDs {
		*c = (*c)[:maxRepoIDs]
	}
}

// write replaces the file whole (a temporary file renamed over it), so a
// concurrent reader sees the old list or the new one.
func (c repoIDs) write(gitDir string) {
	path := repoIDFile(gitDir)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "repo-id-*")
	if err != nil {
		return
	}
	w := bufio.NewWriter(tmp)
	for _, e := range c {
		w.WriteString(e.head + " " + e.id + "\n")
	}
	if w.Flush() != nil || tmp.Close() != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}
