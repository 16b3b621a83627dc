package modeltest

import (
	"fmt"
	"slices"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/readcache"
)

// answer is one node of the model's session tree, as freshctx's read cache
// keeps one: a read the model was given (res), its own edit of a file or a
// read of it nobody can vouch for (res nil), or a compaction, and what it
// does to the model's view of its file. What the model holds of a file is
// what the nodes on the path to its session's leaf do to it, in order, from
// the latest compaction on that path: a read once it is delivered and
// unless it was taken back, every edit and forget. A rewind moves the leaf
// back to a node; a fork starts a session whose path is another's up to a
// node; a read delivered late, or taken back, changes what the nodes after
// it show.
type answer struct {
	res        *readcache.ReadResult
	path       string
	parent     *answer // the node before it on its path; nil for the first
	apply      func(*view)
	compaction bool
	revoked    bool
	waiting    bool // answered, not yet delivered
}

// stands reports whether the node is part of what the model holds.
func (a *answer) stands() bool { return !a.revoked && !a.waiting }

// add makes a the leaf of the session the model works in.
func (w *world) add(a *answer) {
	a.parent = w.leaf[w.sess]
	w.leaf[w.sess] = a
	w.nodes = append(w.nodes, a)
}

// pathToLeaf is the nodes from the first to the leaf of the model's
// session, in order.
func (w *world) pathToLeaf() []*answer {
	var path []*answer
	for a := w.leaf[w.sess]; a != nil; a = a.parent {
		path = append(path, a)
	}
	slices.Reverse(path)
	return path
}

// view is what the model holds of p.
func (w *world) view(p string) *view {
	path := w.pathToLeaf()
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].compaction {
			path = path[i+1:]
			break
		}
	}
	v := newView()
	for _, a := range path {
		if a.path == p && a.stands() {
			a.apply(v)
		}
	}
	return v
}

// event adds a change of what the model holds of p that is not a read.
func (w *world) event(p string, apply func(*view)) {
	w.add(&answer{path: p, apply: apply})
}

func (w *world) compact() {
	if _, err := w.rc.Compact(w.ctx, w.sess); err != nil {
		w.t.Fatalf("compact: %v", err)
	}
	w.add(&answer{compaction: true})
}

// readsOnPath are the reads on the path to the leaf: where a rewind or a
// fork may start from.
func (w *world) readsOnPath() []*answer {
	return slices.DeleteFunc(w.pathToLeaf(), func(a *answer) bool { return a.res == nil })
}

// rewind moves the model's session back to one of its reads, as a client
// that rewinds its conversation does: what came after it on the path is
// gone from what the model holds.
func (w *world) rewind(t *rapid.T) {
	reads := w.readsOnPath()
	if len(reads) == 0 {
		return
	}
	to := rapid.SampledFrom(reads).Draw(t, "rewind to")
	if _, err := w.rc.Checkout(w.ctx, w.sess, to.res.Entry); err != nil {
		t.Fatalf("checkout entry %d: %v", to.res.Entry, err)
	}
	w.leaf[w.sess] = to
}

// fork starts a session from one of the model's reads and moves the model
// there, as a client that forks its conversation does; the session it
// left keeps its own path, and reads still waiting in it may be delivered
// later. Whether the fork holds what such a read shows depends on when the
// client took it, so it holds nothing of those files: it starts by
// forgetting them.
func (w *world) fork(t *rapid.T) {
	reads := w.readsOnPath()
	if len(reads) == 0 {
		return
	}
	at := rapid.SampledFrom(reads).Draw(t, "fork at")
	name := fmt.Sprintf("fork-%d", len(w.leaf))
	if _, err := w.rc.Fork(w.ctx, w.sess, at.res.Entry, name); err != nil {
		t.Fatalf("fork at entry %d: %v", at.res.Entry, err)
	}
	w.sess, w.leaf[name] = name, at
	forgotten := map[string]bool{}
	for _, a := range w.pathToLeaf() {
		if a.res != nil && a.waiting && !forgotten[a.path] {
			forgotten[a.path] = true
			w.event(a.path, func(v *view) { *v = *newView() })
		}
	}
}
