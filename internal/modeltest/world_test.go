package modeltest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/artifact"
	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/registry"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/workspace"
)

// window is the racy window the services run with: long enough for a
// nanosecond file system's coarse tick (≤ 10 ms), short enough that the
// fingerprint tier is used between steps, not only hashing.
const window = 30 * time.Millisecond

// files are the plain files operations act on; refs adds the paths an
// output can name: a tracked symlink, a path through a linked directory and
// a file in a nested repository.
var (
	files = []string{"a.txt", "b.go", "dir/c.txt", "dir/d.txt", "dir/a.txt", "e.txt"}
	refs  = append(append([]string{}, files...), "CLAUDE.md", "ln/c.txt", "inner/x.go")
)

// contents include same-size pairs, CRLF and LF, empty, longer, binary and
// non-UTF-8 files.
var contents = []string{
	"", "one\n", "two\n", "one\r\n", "v=1\n", "v=2\n",
	"one\ntwo\nthree\n", "one\nTWO\nthree\n", "one\r\ntwo\r\nthree\r\n",
	"one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n",
	strings.Repeat("a line of text for the model to hold\n", 80),
	strings.Repeat("a line of text for the model to hold\n", 79) + "the last line is different now\n",
	"bin\x00ary\n", "caf\xe9\n",
}

// longer are files long enough that a note or a diff is cheaper than the
// text, one line apart from each other, with a short and an empty file:
// the read cache answers most reads again of them with a note or a diff.
var longer = func() []string {
	base := make([]string, 40)
	for i := range base {
		base[i] = fmt.Sprintf("line %d of a file the model reads often\n", i+1)
	}
	edit := func(i int, l string) string {
		c := slices.Clone(base)
		c[i] = l
		return strings.Join(c, "")
	}
	return []string{
		strings.Join(base, ""), edit(4, "line five, changed\n"), edit(29, "line thirty, changed\n"),
		strings.Join(base, "") + "one more line\n", strings.Join(base[:39], ""), "one\n", "",
	}
}()

// world is one repository, the four services on one store, and the model
// of what each feature was shown.
type world struct {
	t    *rapid.T
	ctx  context.Context
	r    *testgit.Repo
	st   *store.Store
	rec  *records.Service
	reg  *registry.Service
	arts *artifact.Service
	rc   *readcache.Service

	records   []recItem
	artifacts []artItem
	summaries map[string][]byte  // summary text → the bytes it was written for
	nodes     []*answer          // the read model: every node of its session tree, in the order made
	leaf      map[string]*answer // each read-cache session's latest node
	sess      string             // the read-cache session the model works in
	waiting   []*answer          // reads answered and not yet delivered
	before    map[string]string  // each file's bytes before its last write, for undo
	texts     []string           // what files are written with: contents, or longer
	files     []string           // the files written and edited: files, or fewer
	refs      []string           // the paths read: refs, or fewer
	n         int                // a counter for names
	steps     int
}

// recItem is a record and the bytes of each file it references, read by
// the test right after the record was made.
type recItem struct {
	id     int64
	files  map[string]content
	during map[string]bool // rewritten by the command itself
	// named are the files the output meant, as the model knows them (a
	// path relative to where the command moved, say): while any of them
	// differs, the record is not fresh, whatever files it stamped.
	named map[string]content
}

type artItem struct {
	key  string
	deps map[string]content
}

// content is a path's bytes as the test reads them (following symlinks);
// ok is false when there is no regular file to read, dir is true when a
// directory stands there.
type content struct {
	b   []byte
	ok  bool
	dir bool
}

func (c content) equal(d content) bool {
	return c.ok == d.ok && c.dir == d.dir && bytes.Equal(c.b, d.b)
}

func newWorld(t *rapid.T, dir string) *world {
	r := testgit.Init(t, dir)
	r.Write(".gitignore", "/.freshctx/\n")
	for _, p := range files[:3] {
		r.Write(p, "one\n")
	}
	r.Commit("init")
	ws, err := workspace.Discover(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(r.Dir, ".freshctx", "freshctx.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The registry answers from one whole status or from git's narrow
	// questions by its size; a run takes one way or the other.
	statusUnder := rapid.SampledFrom([]int{0, -1}).Draw(t, "registry git view")
	return &world{t: t, ctx: ctx, r: r, st: st,
		rec: &records.Service{WS: ws, Store: st, Cwd: r.Dir, RacyWindow: window},
		reg: &registry.Service{WS: ws, Store: st, Cwd: r.Dir, RacyWindow: window,
			WholeStatusUnder: statusUnder},
		arts:      &artifact.Service{WS: ws, Store: st, Cwd: r.Dir, RacyWindow: window},
		rc:        &readcache.Service{WS: ws, Store: st, Cwd: r.Dir},
		summaries: map[string][]byte{}, before: map[string]string{},
		leaf: map[string]*answer{}, sess: session, texts: contents, files: files, refs: refs,
	}
}

func (w *world) abs(p string) string { return filepath.Join(w.r.Dir, filepath.FromSlash(p)) }

// read is the oracle: the bytes of p now.
func (w *world) read(p string) content {
	fi, err := os.Stat(w.abs(p))
	if err != nil || !fi.Mode().IsRegular() {
		return content{dir: err == nil && fi.IsDir()}
	}
	b, err := os.ReadFile(w.abs(p))
	if err != nil {
		return content{}
	}
	return content{b: b, ok: true}
}

// tree is what a dependency is to the model: a file's bytes, or for a
// folder — the path itself may be a link to one — everything under it
// (names relative to it, kinds, file bytes, link targets and the bytes of
// the files links reach; .git and .freshctx left out, at any depth), the
// way a folder's stamp is meant to see it: what a tool reading through the
// path would find.
func (w *world) tree(p string) content {
	root, err := filepath.EvalSymlinks(w.abs(p))
	if fi, serr := os.Stat(root); err != nil || serr != nil || !fi.IsDir() {
		return w.read(p)
	}
	var b bytes.Buffer
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" || d.Name() == ".freshctx" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		b.WriteString(rel + "\x00" + d.Type().String() + "\x00")
		switch {
		case d.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			b.WriteString(target)
			// What the link reaches is part of what is in the folder: a
			// tool reading through it sees that file's bytes.
			if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
				data, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				b.WriteString("\x00")
				b.Write(data)
			}
		case d.Type().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			b.Write(data)
		}
		b.WriteByte(0)
		return nil
	})
	if err != nil {
		return content{dir: true} // not listed whole: never equal to a listed one
	}
	return content{b: b.Bytes(), ok: true, dir: true}
}

// git runs git and ignores failure: an operation that git refuses (a
// conflicting checkout, a stash with nothing to stash) leaves the state as
// it was, which is a state worth checking too.
func (w *world) git(args ...string) {
	cmd := exec(w.r.Dir, args...)
	_ = cmd.Run()
}

// write puts c at p, replacing a directory or symlink there.
func (w *world) write(p, c string) {
	abs := w.abs(p)
	if fi, err := os.Lstat(abs); err == nil && !fi.Mode().IsRegular() {
		os.RemoveAll(abs)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		w.replaceParent(abs)
	}
	if err := os.WriteFile(abs, []byte(c), 0o644); err != nil && !errors.Is(err, os.ErrNotExist) {
		w.t.Logf("write %s: %v", p, err)
	}
}

// replaceParent clears a file or link standing where a directory is needed.
func (w *world) replaceParent(abs string) {
	for d := filepath.Dir(abs); d != w.r.Dir; d = filepath.Dir(d) {
		if fi, err := os.Lstat(d); err == nil && !fi.IsDir() {
			os.RemoveAll(d)
		}
	}
	os.MkdirAll(filepath.Dir(abs), 0o755)
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
