package freshness

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/sha"
)

// A directory is fresh only when the files under it are the same files
// with the same bytes; anything that may change what is in it is stale or
// unknown, never fresh.
func TestDirectoryIsItsFiles(t *testing.T) {
	tests := []checkCase{
		{name: "unchanged", want: Fresh, reason: "same files"},
		{name: "unchanged, no git", noGit: true, want: Fresh},
		{name: "a file in it edited", mutate: func(e *env) { e.r.Write("src/a.go", "package A\n") }, want: StaleChanged},
		{name: "a file in it edited, same size, same mtime", mutate: func(e *env) {
			fi, _ := os.Stat(e.r.Path("src/a.go"))
			e.r.Write("src/a.go", "package z\n")
			e.r.Touch("src/a.go", fi.ModTime())
		}, want: StaleChanged},
		{name: "a file deep in it edited", mutate: func(e *env) { e.r.Write("src/deep/er/c.go", "package cc\n") }, want: StaleChanged},
		{name: "a file added", mutate: func(e *env) { e.r.Write("src/new.go", "") }, want: StaleChanged},
		{name: "an empty folder added", mutate: func(e *env) { os.Mkdir(e.r.Path("src/empty"), 0o755) }, want: StaleChanged},
		{name: "a file removed", mutate: func(e *env) { e.r.Remove("src/b.go") }, want: StaleChanged},
		{name: "a file renamed", mutate: func(e *env) { os.Rename(e.r.Path("src/b.go"), e.r.Path("src/b2.go")) }, want: StaleChanged},
		{name: "a file made a link to the same content", mutate: func(e *env) {
			e.r.Write("same.go", "package b\n")
			e.r.Remove("src/b.go")
			os.Symlink("../same.go", e.r.Path("src/b.go"))
		}, want: StaleChanged},
		{name: "a link in it retargeted", setup: func(e *env) { os.Symlink("a.go", e.r.Path("src/l")) },
			mutate: func(e *env) { os.Remove(e.r.Path("src/l")); os.Symlink("b.go", e.r.Path("src/l")) }, want: StaleChanged},
		{name: "a dangling link in it, unchanged", setup: func(e *env) { os.Symlink("nowhere", e.r.Path("src/l")) }, want: Fresh},
		{name: "a file outside it edited", mutate: func(e *env) { e.r.Write("other.go", "package other2\n") }, want: Fresh},
		{name: "touched only", mutate: func(e *env) { e.r.Touch("src/a.go", hourLater); e.r.Touch("src", hourLater) }, want: Fresh},
		{name: "a nested repository's git folder changed", setup: func(e *env) { e.r.Write("src/sub/.git/HEAD", "ref: a\n") },
			mutate: func(e *env) { e.r.Write("src/sub/.git/HEAD", "ref: b\n") }, want: Fresh},
		{name: "replaced by a file", mutate: func(e *env) { os.RemoveAll(e.r.Path("src")); e.r.Write("src", "x") }, want: StaleChanged},
		{name: "removed", mutate: func(e *env) { os.RemoveAll(e.r.Path("src")) }, want: StaleDeleted},
		{name: "a file in it unreadable", mutate: func(e *env) { e.fs.deny[e.r.Path("src/a.go")] = true }, want: Unknown, reason: "cannot be compared"},
		{name: "a fifo in it, unchanged", setup: func(e *env) {
			if err := syscall.Mkfifo(e.r.Path("src/fifo"), 0o644); err != nil {
				e.t.Skip(err)
			}
		}, want: Fresh},
		{name: "too many entries", setup: func(e *env) {
			for i := range MaxDirEntries {
				e.r.Write(fmt.Sprintf("src/many/%d", i), "")
			}
		}, want: Unknown, reason: "more than"},
		{name: "a link in it to a file elsewhere, unchanged", setup: func(e *env) { os.Symlink("../other.go", e.r.Path("src/o")) },
			mutate: func(e *env) { e.r.Write("third.go", "package third\n") }, want: Fresh},
		{name: "a link in it to a file elsewhere, that file edited", setup: func(e *env) { os.Symlink("../other.go", e.r.Path("src/o")) },
			mutate: func(e *env) { e.r.Write("other.go", "package OTHER\n") }, want: StaleChanged},
		{name: "a link in it to a file elsewhere, edited keeping size and mtime", setup: func(e *env) {
			os.Symlink("../other.go", e.r.Path("src/o"))
		}, mutate: func(e *env) {
			fi, _ := os.Stat(e.r.Path("other.go"))
			e.r.Write("other.go", "package xxxxx\n")
			e.r.Touch("other.go", fi.ModTime())
		}, want: StaleChanged},
		{name: "a link in it through a chain of links, the end edited", setup: func(e *env) {
			os.Symlink("other.go", e.r.Path("hop"))
			os.Symlink("../hop", e.r.Path("src/o"))
		}, mutate: func(e *env) { e.r.Write("other.go", "package OTHER\n") }, want: StaleChanged},
		{name: "a link loop in it, unchanged", setup: func(e *env) {
			os.Symlink("loop2", e.r.Path("src/loop1"))
			os.Symlink("loop1", e.r.Path("src/loop2"))
		}, want: Fresh},
		{name: "a link in it that cannot be followed, its target edited", setup: func(e *env) {
			os.Symlink("../other.go", e.r.Path("src/o"))
			e.fs.denyStat[e.r.Path("src/o")], e.fs.denyStat[e.r.Path("other.go")] = true, true
		}, mutate: func(e *env) { e.r.Write("other.go", "package OTHER\n") }, want: Unknown, reason: "not compared"},
		{name: "a link in it that can no longer be followed", setup: func(e *env) { os.Symlink("../other.go", e.r.Path("src/o")) },
			mutate: func(e *env) { e.fs.denyStat[e.r.Path("src/o")], e.fs.denyStat[e.r.Path("other.go")] = true, true },
			want:   Unknown, reason: "cannot be compared"},
		{name: "a dangling link in it, its target created", setup: func(e *env) { os.Symlink("../later.go", e.r.Path("src/l")) },
			mutate: func(e *env) { e.r.Write("later.go", "package later\n") }, want: StaleChanged},
		{name: "a link in it to a file in .git, that file edited", setup: func(e *env) {
			os.Symlink("../.git/description", e.r.Path("src/d"))
		}, mutate: func(e *env) { e.r.Write(".git/description", "another\n") }, want: StaleChanged},
		{name: "a link in it to a folder in it", setup: func(e *env) { os.Symlink("deep", e.r.Path("src/alias")) },
			mutate: func(e *env) { e.r.Write("other.go", "package OTHER\n") }, want: Fresh},
		{name: "a link in it to itself's parent", setup: func(e *env) { os.Symlink("..", e.r.Path("src/up")) },
			want: Unknown, reason: "holds a link to a folder outside it"},
		{name: "a link in it to a folder elsewhere", setup: func(e *env) {
			e.r.Write("lib/x.go", "package lib\n")
			os.Symlink("../lib", e.r.Path("src/lib"))
		}, want: Unknown, reason: "holds a link to a folder outside it"},
		{name: "a link in it to a file outside the root", setup: func(e *env) {
			out := e.t.TempDir() + "/secret"
			os.WriteFile(out, []byte("x"), 0o644)
			os.Symlink(out, e.r.Path("src/s"))
		}, want: Unknown, reason: "outside"},
		{name: "a link to a directory outside the root", setup: func(e *env) {
			out := e.t.TempDir()
			os.WriteFile(out+"/secret", []byte("x"), 0o644)
			os.RemoveAll(e.r.Path("src"))
			os.Symlink(out, e.r.Path("src"))
		}, want: Unknown, reason: "outside"},
	}
	for _, tt := range tests {
		tt.paths = []string{"src"}
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, "src/a.go", "package a\n", "src/b.go", "package b\n", "src/deep/er/c.go", "package c\n",
				"other.go", "package other\n")
		})
	}
}

// The whole work tree as one directory leaves out .git and the store, which
// every git and freshctx command writes.
func TestRootDirectoryLeavesOutGitAndStore(t *testing.T) {
	e := newEnv(t, true)
	e.r.Write("a.go", "package a\n")
	e.r.Commit("init")
	e.r.Write(".freshctx/freshctx.db", "one")
	st := e.capture(".")
	e.r.Write(".freshctx/freshctx.db", "two")
	e.r.Write("b.go", "package b\n")
	e.r.Commit("another")
	if got := e.check(st); got.Label != StaleChanged {
		t.Fatalf("after a new file: %s (%+v)", got.Label, got.Files)
	}
	st = e.capture(".")
	e.r.Write(".freshctx/freshctx.db", "three")
	e.r.Git("commit", "-q", "--allow-empty", "-m", "empty")
	if got := e.check(st); got.Label != Fresh {
		t.Fatalf("after git and store writes only: %s (%+v)", got.Label, got.Files)
	}
}

// A link in the work tree to a file in .git is compared through its target:
// the walk leaves .git out, so the link must carry what it reaches.
func TestRootDirectoryLinkIntoGit(t *testing.T) {
	e := newEnv(t, true)
	e.r.Write("a.go", "package a\n")
	e.r.Commit("init")
	if err := os.Symlink(".git/description", e.r.Path("desc")); err != nil {
		t.Fatal(err)
	}
	st := e.capture(".")
	e.r.Write(".git/description", "another description\n")
	if got := e.check(st); got.Label != StaleChanged {
		t.Fatalf("after the file the link reaches changed: %s (%+v)", got.Label, got.Files)
	}
}

// A directory stamped before directories had digests is unknown, not
// fresh: nothing says what was in it.
func TestDirectoryWithoutDigestIsUnknown(t *testing.T) {
	e := newEnv(t, false)
	e.r.Write("src/a.go", "package a\n")
	st := e.capture("src")
	st.Files[0].Digest = sha.Sum{}
	got := e.check(st)
	if got.Label != Unknown || !strings.Contains(got.Files[0].Reason, "not compared") {
		t.Fatalf("got %s: %+v", got.Label, got.Files)
	}
}

// A file written under a directory while the command ran makes the
// directory unknown, as it does a file.
func TestDirectoryChangedDuringRun(t *testing.T) {
	e := newEnv(t, false)
	e.r.Write("src/deep/a.go", "package a\n")
	time.Sleep(20 * time.Millisecond)
	start := FileClock()
	time.Sleep(20 * time.Millisecond)
	e.r.Write("src/deep/a.go", "package b\n") // the folders' own times stay before start
	s := e.snapshot([]string{"src"})
	st, err := s.Stamp(context.Background(), []string{"src"}, start)
	if err != nil {
		t.Fatal(err)
	}
	if st.Files[0].FP.ChangedSince(start) {
		t.Fatal("the folder itself changed: the test proves nothing")
	}
	if st.Files[0].Notes&NoteChangedDuringRun == 0 {
		t.Fatalf("notes = %b, want changed during the run", st.Files[0].Notes)
	}
	if got := e.check(st); got.Label != Unknown {
		t.Fatalf("got %s: %+v", got.Label, got.Files)
	}
}

func TestUnprovable(t *testing.T) {
	d := sha.Sum{1}
	for _, tt := range []struct {
		name string
		f    FileStamp
		want bool
	}{
		{"a hashed file", FileStamp{Existed: true, Digest: d}, false},
		{"a file over the hash limit (its settled fingerprint may vouch)", FileStamp{Existed: true}, false},
		{"absent", FileStamp{}, false},
		{"written during the run (a record's note, not a put's)", FileStamp{Existed: true, Digest: d, Notes: NoteChangedDuringRun}, false},
		{"links outside", FileStamp{Existed: true, Notes: NoteOutsideRoot}, true},
		{"changing while read", FileStamp{Existed: true, Notes: NoteUnsettled}, true},
		{"a folder compared", FileStamp{Existed: true, IsDir: true, Digest: d}, false},
		{"a folder too large", FileStamp{Existed: true, IsDir: true, Notes: NoteNotStamped}, true},
		{"a folder not all read", FileStamp{Existed: true, IsDir: true}, true},
	} {
		if _, got := tt.f.Unprovable(); got != tt.want {
			t.Errorf("%s: Unprovable = %v, want %v", tt.name, got, tt.want)
		}
	}
}
