package freshness

import (
	"context"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/sha"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/workspace"
)

// env is one workspace with a persistent stat cache and a file system the
// test can make unreadable.
type env struct {
	t     *testing.T
	r     *testgit.Repo
	cache *MemCache
	fs    *denyFS
	max   int64
	now   func() time.Time
}

func newEnv(t *testing.T, git bool) *env {
	var r *testgit.Repo
	if git {
		r = testgit.New(t)
	} else {
		r = testgit.Plain(t, t.TempDir())
	}
	return &env{t: t, r: r, cache: &MemCache{}, fs: &denyFS{deny: map[string]bool{}, denyStat: map[string]bool{}}}
}

func (e *env) snapshot(paths []string) *Snapshot {
	e.t.Helper()
	ws, err := workspace.Discover(e.r.Dir)
	if err != nil {
		// The root is gone: build the workspace by hand as a caller holding
		// an old record would.
		ws = &workspace.Workspace{Root: e.r.Dir}
	}
	s, err := NewSnapshot(context.Background(), ws, paths, Options{FS: e.fs, Cache: e.cache, MaxHashSize: e.max, Now: e.now})
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func (e *env) capture(paths ...string) Stamp {
	e.t.Helper()
	s := e.snapshot(paths)
	st, err := s.Stamp(context.Background(), paths, time.Time{})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := s.Flush(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	return st
}

func (e *env) check(st Stamp) Result {
	e.t.Helper()
	paths := make([]string, len(st.Files))
	for i, f := range st.Files {
		paths[i] = f.Path
	}
	s := e.snapshot(paths)
	res, err := s.Check(context.Background(), st)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := s.Flush(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	return res
}

// denyFS is the OS file system with some files made unreadable (the tests run
// as root, where chmod cannot do that) and a count of opens.
type denyFS struct {
	OSFS
	deny map[string]bool
	// denyStat makes a stat through these paths fail as a folder without
	// search permission would.
	denyStat map[string]bool
	opens    atomic.Int64
}

func (d *denyFS) Stat(name string) (FileInfo, error) {
	if d.denyStat[name] {
		return FileInfo{}, &fs.PathError{Op: "stat", Path: name, Err: syscall.EACCES}
	}
	return d.OSFS.Stat(name)
}

func (d *denyFS) Open(name string) (io.ReadCloser, error) {
	d.opens.Add(1)
	if d.deny[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return d.OSFS.Open(name)
}

var hourLater = time.Now().Add(time.Hour)

// hourFromNow is a clock an hour ahead: fingerprints taken with it are
// settled.
func hourFromNow() time.Time { return time.Now().Add(time.Hour) }

// checkCase is a workspace, a stamp of paths, what happens after it and
// the label (and a word of the first file's reason) the check must give.
type checkCase struct {
	name   string
	noGit  bool
	setup  func(e *env) // before capture
	paths  []string
	mutate func(e *env) // after capture
	want   Label
	reason string
}

// run writes files (committed unless noGit) and plays the case.
func (tt checkCase) run(t *testing.T, files ...string) {
	e := newEnv(t, !tt.noGit)
	for i := 0; i+1 < len(files); i += 2 {
		e.r.Write(files[i], files[i+1])
	}
	if !tt.noGit {
		e.r.Commit("init")
	}
	if tt.setup != nil {
		tt.setup(e)
	}
	st := e.capture(tt.paths...)
	if tt.mutate != nil {
		tt.mutate(e)
	}
	got := e.check(st)
	if got.Label != tt.want {
		t.Fatalf("label = %s, want %s (files %+v)", got.Label, tt.want, got.Files)
	}
	if tt.reason != "" && !strings.Contains(got.Files[0].Reason, tt.reason) {
		t.Fatalf("reason = %q, want it to mention %q", got.Files[0].Reason, tt.reason)
	}
}

func TestCheckTable(t *testing.T) {
	tests := []checkCase{
		{name: "unchanged", paths: []string{"a.go"}, want: Fresh, reason: "content unchanged"},
		{name: "unchanged, settled fingerprint", paths: []string{"a.go"}, setup: func(e *env) { e.now = hourFromNow }, want: Fresh, reason: "same inode"},
		{name: "edited same size", paths: []string{"a.go"}, mutate: func(e *env) { e.r.Write("a.go", "package B\n") }, want: StaleChanged},
		{name: "edited other size", paths: []string{"a.go"}, mutate: func(e *env) { e.r.Write("a.go", "package bb\n") }, want: StaleChanged},
		{name: "touched only", paths: []string{"a.go"}, mutate: func(e *env) { e.r.Touch("a.go", hourLater) }, want: Fresh},
		{name: "touched only, no git", noGit: true, paths: []string{"a.go"}, mutate: func(e *env) { e.r.Touch("a.go", hourLater) }, want: Fresh, reason: "touched"},
		{name: "deleted", paths: []string{"a.go"}, mutate: func(e *env) { e.r.Remove("a.go") }, want: StaleDeleted},
		{name: "renamed", paths: []string{"a.go"}, mutate: func(e *env) { e.r.Git("mv", "a.go", "moved.go") }, want: StaleDeleted},
		{name: "replaced by a directory", paths: []string{"a.go"}, mutate: func(e *env) {
			e.r.Remove("a.go")
			e.r.Write("a.go/inner.go", "package a\n")
		}, want: StaleDeleted},
		{name: "replaced by a directory, no git", noGit: true, paths: []string{"a.go"}, mutate: func(e *env) {
			e.r.Remove("a.go")
			e.r.Write("a.go/inner.go", "package a\n")
		}, want: StaleDeleted, reason: "directory"},
		{name: "dirty at capture, unchanged since", paths: []string{"a.go"},
			setup: func(e *env) { e.r.Write("a.go", "package a // dirty\n") }, want: Fresh, reason: "content unchanged"},
		{name: "edited then reverted", paths: []string{"a.go"}, mutate: func(e *env) {
			e.r.Write("a.go", "package zzz\n")
			e.r.Write("a.go", "package a\n")
		}, want: Fresh},
		{name: "committed without a content change", paths: []string{"a.go"},
			setup:  func(e *env) { e.r.Write("a.go", "package a // dirty\n") },
			mutate: func(e *env) { e.r.Commit("commit the dirty file") }, want: Fresh},
		{name: "branch switched and back", paths: []string{"a.go"}, mutate: func(e *env) {
			e.r.Git("checkout", "-q", "-b", "other")
			e.r.Write("a.go", "package other\n")
			e.r.Commit("other version")
			e.r.Git("checkout", "-q", "main")
		}, want: Fresh},
		{name: "new commit with the identical tree", paths: []string{"a.go"}, mutate: func(e *env) {
			e.r.Git("commit", "-q", "--amend", "-m", "reworded")
		}, want: Fresh},
		{name: "branch switched to another version", paths: []string{"a.go"}, mutate: func(e *env) {
			e.r.Git("checkout", "-q", "-b", "other")
			e.r.Write("a.go", "package other\n")
			e.r.Commit("other version")
		}, want: StaleChanged},
		{name: "unreadable file with a newer mtime", paths: []string{"a.go"}, mutate: func(e *env) {
			e.fs.deny[e.r.Path("a.go")] = true
			e.r.Write("a.go", "package x\n")
			e.r.Touch("a.go", hourLater)
		}, want: StaleChanged, reason: "modified after capture"},
		{name: "unreadable file, stat unchanged but not settled", noGit: true, paths: []string{"a.go"}, mutate: func(e *env) {
			e.fs.deny[e.r.Path("a.go")] = true
		}, want: Unknown, reason: "may have changed"},
		{name: "unreadable file, settled stat unchanged", noGit: true, paths: []string{"a.go"},
			setup:  func(e *env) { e.now = hourFromNow },
			mutate: func(e *env) { e.fs.deny[e.r.Path("a.go")] = true }, want: Fresh, reason: "same inode"},
		{name: "unreadable at capture, modified later", noGit: true, paths: []string{"a.go"},
			setup:  func(e *env) { e.fs.deny[e.r.Path("a.go")] = true },
			mutate: func(e *env) { e.r.Touch("a.go", hourLater) }, want: StaleChanged},
		{name: "over the hash limit, unchanged", noGit: true, paths: []string{"a.go"},
			setup: func(e *env) { e.max, e.now = 2, hourFromNow }, want: Fresh},
		{name: "over the hash limit, stat not settled", noGit: true, paths: []string{"a.go"},
			setup: func(e *env) { e.max = 2 }, want: Unknown},
		{name: "over the hash limit, modified", noGit: true, paths: []string{"a.go"},
			setup: func(e *env) { e.max = 2 }, mutate: func(e *env) { e.r.Touch("a.go", hourLater) }, want: StaleChanged},
		{name: "root removed", paths: []string{"a.go"}, mutate: func(e *env) { os.RemoveAll(e.r.Dir) }, want: Unknown, reason: "root is gone"},
		{name: "no references", paths: nil, want: NoRefs},
		{name: "not a git repo, unchanged", noGit: true, paths: []string{"a.go"}, want: Fresh, reason: "content unchanged"},
		{name: "not a git repo, edited", noGit: true, paths: []string{"a.go"}, mutate: func(e *env) { e.r.Write("a.go", "package b\n") }, want: StaleChanged},
		{name: "not a git repo, deleted", noGit: true, paths: []string{"a.go"}, mutate: func(e *env) { e.r.Remove("a.go") }, want: StaleDeleted},
		{name: "untracked, unchanged", paths: []string{"new.go"}, setup: func(e *env) { e.r.Write("new.go", "x") }, want: Fresh},
		{name: "untracked, edited", paths: []string{"new.go"}, setup: func(e *env) { e.r.Write("new.go", "x") },
			mutate: func(e *env) { e.r.Write("new.go", "y") }, want: StaleChanged},
		{name: "absent at capture, still absent", paths: []string{"gone.go"}, want: Fresh, reason: "still absent"},
		{name: "absent at capture, created", paths: []string{"gone.go"}, mutate: func(e *env) { e.r.Write("gone.go", "x") }, want: StaleChanged},
		{name: "symlink loop", noGit: true, paths: []string{"a.go"}, mutate: func(e *env) {
			e.r.Remove("a.go")
			os.Symlink("loop2", e.r.Path("loop1"))
			os.Symlink("loop1", e.r.Path("loop2"))
			os.Symlink("loop1", e.r.Path("a.go"))
		}, want: Unknown, reason: "cannot stat"},
		{name: "symlink to the same content", noGit: true, paths: []string{"a.go"}, mutate: func(e *env) {
			e.r.Write("real.go", "package a\n")
			e.r.Remove("a.go")
			os.Symlink("real.go", e.r.Path("a.go"))
		}, want: Fresh},
		{name: "worst of several", paths: []string{"a.go", "b.go"}, mutate: func(e *env) {
			e.r.Remove("b.go")
			e.r.Write("a.go", "package changed\n")
		}, want: StaleDeleted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, "a.go", "package a\n", "b.go", "package b\n") })
	}
}

func TestSettledFingerprintReadsNoFile(t *testing.T) {
	e := newEnv(t, true)
	e.r.Write("a.go", "package a\n")
	e.r.Commit("init")
	e.now = hourFromNow
	st := e.capture("a.go")
	e.fs.opens.Store(0)
	if got := e.check(st); got.Label != Fresh {
		t.Fatalf("label = %s", got.Label)
	}
	if e.fs.opens.Load() != 0 {
		t.Fatalf("a file with its settled fingerprint was read %d times, want 0", e.fs.opens.Load())
	}
}

func TestStatCacheSkipsHashingOldFiles(t *testing.T) {
	e := newEnv(t, false)
	e.r.Write("a.go", "package a\n")
	// Hashed an hour after its last change (mtime and ctime): the entry is
	// outside the racy window and may stand for the file.
	e.now = func() time.Time { return time.Now().Add(time.Hour) }
	st := e.capture("a.go")
	e.fs.opens.Store(0)
	if got := e.check(st); got.Label != Fresh {
		t.Fatalf("label = %s", got.Label)
	}
	if e.fs.opens.Load() != 0 {
		t.Fatalf("a file untouched for an hour was hashed again (%d opens)", e.fs.opens.Load())
	}
}

// frozenFS reports one fixed mtime and ctime for every file, as a file system
// with coarse timestamps does for writes within the same tick.
type frozenFS struct {
	OSFS
	at int64
}

func (f frozenFS) Stat(name string) (FileInfo, error) {
	fi, err := f.OSFS.Stat(name)
	fi.ModTime, fi.Ctime = f.at, f.at
	return fi, err
}

func (f frozenFS) Lstat(name string) (FileInfo, error) {
	fi, err := f.OSFS.Lstat(name)
	fi.ModTime, fi.Ctime = f.at, f.at
	return fi, err
}

func TestRacyEditSameSizeSameTick(t *testing.T) {
	r := testgit.Plain(t, t.TempDir())
	r.Write("a.go", "aaaa")
	ws, _ := workspace.Discover(r.Dir)
	cache := &MemCache{}
	opt := Options{FS: frozenFS{at: time.Now().UnixNano()}, Cache: cache}
	ctx := context.Background()
	s1, _ := NewSnapshot(ctx, ws, []string{"a.go"}, opt)
	st, _ := s1.Stamp(ctx, []string{"a.go"}, time.Time{})
	s1.Flush(ctx)
	r.Write("a.go", "bbbb") // same size, same (frozen) stat, same inode
	s2, _ := NewSnapshot(ctx, ws, []string{"a.go"}, opt)
	if got, _ := s2.Check(ctx, st); got.Label != StaleChanged {
		t.Fatalf("racy same-size edit labelled %s, want stale_changed", got.Label)
	}
}

func TestCacheEntryTrusted(t *testing.T) {
	now := time.Now().UnixNano()
	info := FileInfo{Size: 1, ModTime: now - int64(time.Hour), Ctime: now - int64(time.Hour), Inode: 7, Dev: 1}
	fp := Fingerprint{File: info}
	d := sha.Bytes([]byte("x"))
	moved := fp
	moved.File.Ctime++
	tests := []struct {
		name string
		e    CacheEntry
		cur  Fingerprint
		want bool
	}{
		{"old and identical", CacheEntry{FP: fp, Digest: d, Recorded: now}, fp, true},
		{"ctime differs", CacheEntry{FP: fp, Digest: d, Recorded: now}, moved, false},
		{"recorded within the racy window", CacheEntry{FP: fp, Digest: d, Recorded: info.ModTime + int64(time.Second)}, fp, false},
		{"no digest", CacheEntry{FP: fp, Recorded: now}, fp, false},
	}
	for _, tt := range tests {
		if got := tt.e.Trusted(tt.cur, RacyWindow); got != tt.want {
			t.Errorf("%s: Trusted = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestWorst(t *testing.T) {
	tests := []struct {
		in   []Label
		want Label
	}{
		{nil, NoRefs},
		{[]Label{Fresh, Fresh}, Fresh},
		{[]Label{Fresh, Unknown}, Unknown},
		{[]Label{Fresh, StaleChanged, Unknown}, StaleChanged},
		{[]Label{Fresh, StaleChanged, StaleDeleted}, StaleDeleted},
	}
	for _, tt := range tests {
		if got := Worst(tt.in...); got != tt.want {
			t.Errorf("Worst(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
