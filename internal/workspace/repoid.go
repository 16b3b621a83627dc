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

// write replaces the file whole (see replaceFile); a git folder that
// cannot be written only costs the next call the walk.
func (c repoIDs) write(gitDir string) {
	var b strings.Builder
	for _, e := range c {
		b.WriteString(e.head + " " + e.id + "\n")
	}
	replaceFile(repoIDFile(gitDir), b.String())
}

// replaceFile writes path whole through a temporary file renamed over it,
// so a concurrent reader sees the old content or the new, never half. It
// reports nothing: its files in the git folder are caches.
func replaceFile(path, content string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+"-*")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(content)
	if werr != nil || tmp.Close() != nil || os.Rename(tmp.Name(), path) != nil {
		tmp.Close()
		os.Remove(tmp.Name())
	}
}
