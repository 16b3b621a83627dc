package workspace

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The repository id cache: lines "HEAD ID TREE" in <git common
// dir>/freshctx/repo-id, latest first, at most maxRepoIDs of them
// (switching between a few branches never walks history again). A commit
// always has the same id and the same tree, so an entry never goes stale;
// ID is empty in a history with no root commit (a shallow clone), TREE in
// a line written before trees were kept; a damaged file is ignored.

const maxRepoIDs = 16

type repoIDEntry struct{ head, id, tree string }

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
		f := strings.Split(sc.Text(), " ")
		if len(f) < 2 || len(f) > 3 || !isHash(f[0]) || f[1] != "" && !isHash(f[1]) {
			continue
		}
		e := repoIDEntry{head: f[0], id: f[1]}
		if len(f) == 3 && isHash(f[2]) {
			e.tree = f[2]
		}
		out = append(out, e)
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

func (c repoIDs) lookup(head string) (repoIDEntry, bool) {
	for _, e := range c {
		if e.head == head {
			return e, true
		}
	}
	return repoIDEntry{}, false
}

func (c repoIDs) latest() repoIDEntry {
	if len(c) == 0 {
		return repoIDEntry{}
	}
	return c[0]
}

// add puts e first, in place of an entry for the same HEAD.
func (c *repoIDs) add(e repoIDEntry) {
	*c = slices.DeleteFunc(*c, func(o repoIDEntry) bool { return o.head == e.head })
	*c = append(repoIDs{e}, *c...)
	if len(*c) > maxRepoIDs {
		*c = (*c)[:maxRepoIDs]
	}
}

// write replaces the file whole (see replaceFile); a git folder that
// cannot be written only costs the next call the walk.
func (c repoIDs) write(gitDir string) {
	var b strings.Builder
	for _, e := range c {
		b.WriteString(e.head + " " + e.id)
		if e.tree != "" {
			b.WriteString(" " + e.tree)
		}
		b.WriteString("\n")
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
