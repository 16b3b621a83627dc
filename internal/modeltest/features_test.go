package modeltest

import (
	"bytes"
	"fmt"
	"strings"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/artifact"
	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/registry"
)

// featureOps use freshctx and check every answer against the bytes.
func (w *world) featureOps() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"capture":                w.capture,
		"run that rewrites":      w.runRewriting,
		"run in a folder":        w.runInFolder,
		"show records":           func(*rapid.T) { w.checkRecords() },
		"artifact put":           w.put,
		"artifact get":           func(*rapid.T) { w.checkArtifacts() },
		"registry sync":          func(*rapid.T) { w.sync() },
		"registry verify":        func(*rapid.T) { w.verify() },
		"registry summarize":     w.summarize,
		"read":                   w.readOp,
		"read again":             w.readOp,
		"compact":                func(*rapid.T) { w.compact() },
		"read cancelled":         w.readCancelled,
		"cancel an earlier read": w.cancelEarlier,
		"read, delivered later":  w.readLater,
		"deliver a waiting read": w.deliverWaiting,
		"cancel a waiting read":  w.cancelWaiting,
		"the model edits a file": w.modelEdits,
		"forget a file":          w.forgetOp,
		"rewind":                 w.rewind,
		"refresh":                w.refreshOp,
		"fork":                   w.fork,
	}
}

// ---- records

func (w *world) capture(t *rapid.T) {
	paths := rapid.SliceOfNDistinct(rapid.SampledFrom(refs), 1, 3, rapid.ID[string]).Draw(t, "refs")
	var out strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&out, "%s:1: something to look at\n", p)
	}
	rec, err := w.rec.Capture(w.ctx, records.CaptureRequest{Input: strings.NewReader(out.String())})
	if err != nil {
		t.Fatalf("capture: %v", err)
	}
	w.keepRecord(rec, nil, paths...)
}

// runInFolder runs a command that prints a file of dir by its name in dir
// (c.txt:1), having moved there first as a shell line or make says so;
// dir/a.txt and the root's a.txt share a name.
func (w *world) runInFolder(t *rapid.T) {
	name := rapid.SampledFrom([]string{"a.txt", "c.txt", "d.txt"}).Draw(t, "name")
	if !w.read("dir/" + name).ok { // a name in both places is the case that matters
		w.write("dir/"+name, rapid.SampledFrom(contents[:8]).Draw(t, "content"))
	}
	script := rapid.SampledFrom([]string{
		"cd dir && echo '%s:1: here'",
		`printf "make[1]: Entering directory '%%s/dir'\n%s:1: here\n" "$PWD"`,
	}).Draw(t, "how")
	rec, err := w.rec.Run(w.ctx, records.RunRequest{Argv: []string{"sh", "-c", fmt.Sprintf(script, name)}})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	w.keepRecord(rec, nil, "dir/"+name)
}

// runRewriting runs a command that names a file and then rewrites it: the
// record cannot know which content its output saw.
func (w *world) runRewriting(t *rapid.T) {
	p := rapid.SampledFrom(files).Draw(t, "path")
	if !w.read(p).ok {
		return
	}
	c := rapid.SampledFrom(contents[:10]).Draw(t, "content")
	script := fmt.Sprintf("echo '%s:1: here'; printf '%%s' '%s' > '%s'", p, strings.ReplaceAll(c, "\n", "\\n"), p)
	script = strings.ReplaceAll(script, "\r", "\\r")
	rec, err := w.rec.Run(w.ctx, records.RunRequest{Argv: []string{"sh", "-c", script}})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	w.keepRecord(rec, map[string]bool{p: true}, p)
}

// keepRecord remembers a record with the files it stamped and those its
// output meant (named) that existed.
func (w *world) keepRecord(rec *records.Record, during map[string]bool, named ...string) {
	it := recItem{id: rec.ID, files: map[string]content{}, during: during, named: map[string]content{}}
	for _, f := range rec.Files {
		it.files[f.Path] = w.tree(f.Path)
	}
	for _, p := range named {
		if c := w.read(p); c.ok {
			it.named[p] = c
		}
	}
	w.records = append(w.records, it)
}

// checkRecords: a fresh file has the bytes it had when stamped (and was not
// rewritten by its command); a stale one does not. A path the output named
// that is a folder is stamped as one, so the model compares what is under
// it (tree): fresh means nothing there changed; stale is not held to a
// change the model sees, since the stamp sees more of a folder than its
// listing (whether the path itself is a link, for one).
func (w *world) checkRecords() {
	recs, err := w.rec.List(w.ctx, 0)
	if err != nil {
		w.t.Fatalf("list: %v", err)
	}
	byID := map[int64]*records.Record{}
	for _, r := range recs {
		byID[r.ID] = r
	}
	for _, it := range w.records {
		r := byID[it.id]
		if r == nil || r.Freshness == nil {
			w.t.Fatalf("record %d is not listed with its freshness", it.id)
		}
		for p, then := range it.named {
			if now := w.read(p); r.Freshness.Label == freshness.Fresh && !then.equal(now) && !it.during[p] {
				w.t.Fatalf("record %d is fresh but %s, which its output named, changed: %q → %q", it.id, p, then.b, now.b)
			}
		}
		for _, f := range r.Freshness.Files {
			then, now := it.files[f.Path], w.tree(f.Path)
			same := then.equal(now)
			switch {
			case f.Label == freshness.Fresh && !same:
				w.t.Fatalf("record %d: %s is fresh (%s) but its bytes changed: %q → %q", it.id, f.Path, f.Reason, then.b, now.b)
			case f.Label == freshness.Fresh && it.during[f.Path]:
				w.t.Fatalf("record %d: %s is fresh (%s) but the command rewrote it", it.id, f.Path, f.Reason)
			case f.Label.Stale() && same && !then.dir:
				w.t.Fatalf("record %d: %s is %s (%s) but its bytes are the same", it.id, f.Path, f.Label, f.Reason)
			}
		}
	}
}

// ---- artifacts

func (w *world) put(t *rapid.T) {
	// Folders too: "dir" holds two of the files, "." the whole tree, a
	// link and a nested repository among them.
	deps := rapid.SliceOfNDistinct(rapid.SampledFrom(append(refs, "dir", ".")), 1, 3, rapid.ID[string]).Draw(t, "deps")
	it := artItem{key: w.name("art"), deps: map[string]content{}}
	for _, d := range deps {
		c := w.tree(d)
		if !c.ok {
			return // put refuses a missing dep
		}
		it.deps[d] = c
	}
	_, err := w.arts.Put(w.ctx, artifact.PutRequest{Type: "tool_result", Key: it.key, Deps: deps, Content: strings.NewReader(it.key)})
	if err != nil {
		return // e.g. a dep that is a link outside, or vanished
	}
	w.artifacts = append(w.artifacts, it)
}

// checkArtifacts: a hit means every dependency has the bytes it had at put.
func (w *world) checkArtifacts() {
	for _, it := range w.artifacts {
		got, err := w.arts.Get(w.ctx, artifact.GetRequest{Type: "tool_result", Key: it.key})
		if err != nil {
			w.t.Fatalf("get %s: %v", it.key, err)
		}
		if got.Outcome != artifact.Hit {
			continue
		}
		for p, then := range it.deps {
			if now := w.tree(p); !then.equal(now) {
				w.t.Fatalf("artifact %s is a hit but dependency %s changed: %q → %q", it.key, p, then.b, now.b)
			}
		}
	}
}

// ---- registry

func (w *world) sync() {
	res, err := w.reg.Sync(w.ctx)
	if err != nil {
		w.t.Fatalf("registry sync: %v", err)
	}
	w.checkRegistry(res.Action)
}

// checkRegistry: every row has the digest of its file's bytes now, a
// summary is stale exactly when the file no longer has the bytes it was
// written for, and every file git lists that the registry keeps has a row.
func (w *world) checkRegistry(action string) {
	l, err := w.reg.List(w.ctx, false)
	if err != nil {
		w.t.Fatalf("registry list: %v", err)
	}
	have := map[string]bool{}
	for _, f := range l.Files {
		have[f.Path] = true
		now := w.read(f.Path)
		if !now.ok || sum(now.b) != f.Digest {
			w.t.Fatalf("after %s, registry row %s has digest %.12s but the file is %q", action, f.Path, f.Digest, now.b)
		}
		if f.Summary == nil {
			continue
		}
		if then, ok := w.summaries[*f.Summary]; ok && f.SummaryStale == bytes.Equal(then, now.b) {
			w.t.Fatalf("after %s, %s summary_stale = %v, but it was written for %q and the file is %q",
				action, f.Path, f.SummaryStale, then, now.b)
		}
	}
	for _, p := range w.listed() {
		now := w.read(p)
		if now.ok && !bytes.ContainsRune(now.b[:min(len(now.b), 8192)], 0) && !have[p] {
			w.t.Fatalf("after %s, %s is in the tree but has no registry row", action, p)
		}
	}
}

// listed is what git lists as the tree's files (tracked, and untracked but
// not ignored): the registry's candidates, not evidence of content.
func (w *world) listed() []string {
	out, err := exec(w.r.Dir, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		w.t.Fatalf("ls-files: %v", err)
	}
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" && !strings.HasSuffix(p, "/") {
			paths = append(paths, p)
		}
	}
	return paths
}

func (w *world) verify() {
	before, err := w.reg.List(w.ctx, false)
	if err != nil {
		w.t.Fatalf("registry list: %v", err)
	}
	rows := map[string]string{}
	for _, f := range before.Files {
		rows[f.Path] = f.Digest
	}
	look := *w.reg
	look.Looking = true // as `registry verify` without --apply: it saves nothing
	res, err := look.Verify(w.ctx, false)
	if err != nil {
		w.t.Fatalf("registry verify: %v", err)
	}
	for _, v := range res.Verdicts {
		now := w.read(v.Path)
		switch v.Verdict {
		case registry.Match:
			if !now.ok || sum(now.b) != rows[v.Path] {
				w.t.Fatalf("verify says %s matches, but the file is %q", v.Path, now.b)
			}
		case registry.Mismatch:
			if now.ok && sum(now.b) == rows[v.Path] {
				w.t.Fatalf("verify says %s mismatches, but its bytes are the row's", v.Path)
			}
		}
	}
}

func (w *world) summarize(t *rapid.T) {
	p := rapid.SampledFrom(refs).Draw(t, "path")
	c := w.read(p)
	text := w.name("summary of " + p)
	if _, err := w.reg.Summarize(w.ctx, []registry.Summary{{Path: p, Summary: text}}); err != nil {
		return // binary, missing, a directory: refused
	}
	if now := w.read(p); !now.equal(c) {
		t.Fatalf("summarize changed the file?")
	}
	w.summaries[text] = c.b
}
