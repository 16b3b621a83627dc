package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// A commit new to the repository-id cache (the first run after a commit)
// costs Identity two gits, the tree's rev-parse and the walk of the commits
// since the last known HEAD, and they can only start once the status has
// said which commit HEAD is: after the status, not beside it. WarmIdentity
// guesses the commit from the git folder's own files as the status starts
// and asks Identity about it then. The guess decides nothing: Identity is
// still asked for the HEAD the status reports, and only finds its answer
// already kept when the guess was that commit (a tree and a root commit are
// facts of a commit, whoever asked). A HEAD the files do not name plainly
// (a packed ref, a reftable, a layout read only through git) is not
// guessed.

// warming is an Identity WarmIdentity started.
type warming struct {
	head string
	done chan struct{}
}

// WarmIdentity starts Identity, in the background, for the commit the git
// folder's files say HEAD is, when the cache does not hold it.
func (g *Git) WarmIdentity(ctx context.Context) {
	dirs, ok := g.knownDirs()
	if !ok {
		return
	}
	head, ok := headFromFiles(dirs)
	if !ok {
		return
	}
	if e, known := readRepoIDs(dirs.common).lookup(head); known && e.tree != "" {
		return
	}
	w := &warming{head: head, done: make(chan struct{})}
	g.warmMu.Lock()
	g.warm = w
	g.warmMu.Unlock()
	go func() {
		defer close(w.done)
		g.identity(ctx, head) // an error is Identity's again when it is asked
	}()
}

// awaitWarm waits for the Identity WarmIdentity started for head, if it
// did, so that a caller asking about the same commit reads what it kept
// instead of running the same gits beside it.
func (g *Git) awaitWarm(ctx context.Context, head string) {
	g.warmMu.Lock()
	w := g.warm
	g.warmMu.Unlock()
	if w == nil || w.head != head {
		return
	}
	select {
	case <-w.done:
	case <-ctx.Done():
	}
}

// WaitWarm waits for the Identity WarmIdentity started last, if any, to
// end: a caller done with the work tree (a run whose record could not be
// kept, which never asked) knows nothing it started still writes into the
// git folder's cache once it returns.
func (g *Git) WaitWarm() {
	g.warmMu.Lock()
	w := g.warm
	g.warmMu.Unlock()
	if w != nil {
		<-w.done
	}
}

// headFromFiles reads the commit HEAD names from the git folder: a detached
// HEAD's hash, or the loose ref of the branch it names. ok is false for
// anything else.
func headFromFiles(d *gitDirs) (string, bool) {
	head, ok := hashOrRef(filepath.Join(d.dir, "HEAD"))
	if ok || !strings.HasPrefix(head, "refs/heads/") {
		return head, ok
	}
	if strings.Contains(head, "..") || strings.ContainsRune(head, '\\') {
		return "", false
	}
	return hashOrRef(filepath.Join(d.common, filepath.FromSlash(head)))
}

// hashOrRef reads a ref file: its hash and true, or the ref it points to
// ("ref: NAME") and false; "" and false when it is neither.
func hashOrRef(path string) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	s := strings.TrimRight(string(b), "\r\n")
	if isHash(s) {
		return s, true
	}
	ref, _ := strings.CutPrefix(s, "ref: ")
	if ref == s {
		return "", false
	}
	return ref, false
}
