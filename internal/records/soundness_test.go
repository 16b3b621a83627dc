package records

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/teststore"
)

// The cases below each made freshctx call a changed file fresh. They run
// with a 1 ns racy window, so every fingerprint is taken as settled: the
// fingerprint tier, not only hashing, must see each change. The tests'
// writes are milliseconds apart (git and sh run between them), far more
// than one timestamp tick.

func soundService(t *testing.T, setup func(r *testgit.Repo)) (*Service, *testgit.Repo) {
	t.Helper()
	r := testgit.New(t)
	r.Write("a.go", "package a\n\nvar A = 1\n")
	if setup != nil {
		setup(r)
	}
	r.Commit("init")
	tick()
	ws := teststore.Workspace(t, r.Dir)
	st := teststore.Open(t, "", store.Options{})
	return &Service{WS: ws, Store: st, Cwd: r.Dir, RacyWindow: time.Nanosecond}, r
}

// tick lets one timestamp tick pass, so a file written just before a
// command is not taken as written while it ran.
func tick() { time.Sleep(15 * time.Millisecond) }

// label shows a record and returns its label and the reason of path.
func label(t *testing.T, s *Service, id int64, path string) (freshness.Label, string) {
	t.Helper()
	rec, err := s.Show(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rec.Freshness.Files {
		if f.Path == path {
			return rec.Freshness.Label, f.Reason
		}
	}
	t.Fatalf("record %d does not reference %s: %+v", id, path, rec.Freshness.Files)
	return "", ""
}

func wantLabel(t *testing.T, s *Service, id int64, path string, want ...freshness.Label) {
	t.Helper()
	got, why := label(t, s, id, path)
	for _, w := range want {
		if got == w {
			return
		}
	}
	t.Fatalf("record %d is %s (%s), want %v", id, got, why, want)
}

func TestSoundAssumeUnchanged(t *testing.T) {
	for _, flag := range []string{"--assume-unchanged", "--skip-worktree"} {
		t.Run(flag, func(t *testing.T) {
			s, r := soundService(t, nil)
			rec := run(t, s, `echo "a.go:3: boom"`)
			wantLabel(t, s, rec.ID, "a.go", freshness.Fresh)
			r.Git("update-index", flag, "a.go")
			r.Write("a.go", "package a\n\nvar A = 2\n") // same size
			if out := r.Git("status", "--porcelain"); out != "" {
				t.Fatalf("git should call the tree clean here: %q", out)
			}
			wantLabel(t, s, rec.ID, "a.go", freshness.StaleChanged)
		})
	}
}

func TestSoundCRLFStagedUnderTextAuto(t *testing.T) {
	s, r := soundService(t, func(r *testgit.Repo) { r.Write(".gitattributes", "* text=auto\n") })
	rec := run(t, s, `echo "a.go:1: here"`)
	r.Write("a.go", "package a\r\n\r\nvar A = 1\r\n")
	r.Git("add", "a.go")
	if out := r.Git("status", "--porcelain"); out != "" {
		t.Fatalf("git should call the tree clean here: %q", out)
	}
	wantLabel(t, s, rec.ID, "a.go", freshness.StaleChanged)
}

func TestSoundTrackedSymlinkTargetEdited(t *testing.T) {
	s, r := soundService(t, func(r *testgit.Repo) {
		r.Write("AGENTS.md", "# agents\n")
		if err := os.Symlink("AGENTS.md", r.Path("CLAUDE.md")); err != nil {
			t.Fatal(err)
		}
	})
	rec := run(t, s, `echo "CLAUDE.md:1: heading"`)
	wantLabel(t, s, rec.ID, "CLAUDE.md", freshness.Fresh)
	r.Write("AGENTS.md", "# AGENTS\n")
	wantLabel(t, s, rec.ID, "CLAUDE.md", freshness.StaleChanged)
}

func TestSoundPathThroughLinkedDirectory(t *testing.T) {
	s, r := soundService(t, func(r *testgit.Repo) {
		r.Write("real/a.go", "package real\n")
		if err := os.Symlink("real", r.Path("link")); err != nil {
			t.Fatal(err)
		}
	})
	rec := run(t, s, `echo "link/a.go:1:1: here"`)
	wantLabel(t, s, rec.ID, "link/a.go", freshness.Fresh)
	r.Write("real/a.go", "package REAL\n")
	wantLabel(t, s, rec.ID, "link/a.go", freshness.StaleChanged)
}

func TestSoundFileInEmbeddedRepository(t *testing.T) {
	s, r := soundService(t, func(r *testgit.Repo) {
		if err := os.MkdirAll(r.Path("inner"), 0o755); err != nil {
			t.Fatal(err)
		}
		inner := testgit.Init(t, r.Path("inner"))
		inner.Write("x.go", "package x\n")
		inner.Commit("inner")
		r.Git("add", "-A")
	})
	rec := run(t, s, `echo "inner/x.go:1: here"`)
	wantLabel(t, s, rec.ID, "inner/x.go", freshness.Fresh)
	r.Write("inner/x.go", "package y\n")
	wantLabel(t, s, rec.ID, "inner/x.go", freshness.StaleChanged)
}

func TestSoundSameSizeEditWithOldMtime(t *testing.T) {
	s, r := soundService(t, nil)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	r.Touch("a.go", old)
	tick()
	rec := run(t, s, `echo "a.go:3: boom"`)
	wantLabel(t, s, rec.ID, "a.go", freshness.Fresh)
	r.Write("a.go", "package a\n\nvar A = 9\n")
	r.Touch("a.go", old) // as cp -p and rsync -t do
	wantLabel(t, s, rec.ID, "a.go", freshness.StaleChanged)
}

func TestSoundLargeFileEditedInPlaceWithMtimeKept(t *testing.T) {
	s, r := soundService(t, nil)
	big := r.Path("big.bin")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 300<<20); err != nil { // sparse: over the hash limit, cheap to make
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	r.Touch("big.bin", old)
	tick()
	rec := run(t, s, `echo "big.bin:1: here"`)
	wantLabel(t, s, rec.ID, "big.bin", freshness.Fresh)
	f, err := os.OpenFile(big, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("x"), 100<<20)
	f.Close()
	r.Touch("big.bin", old)
	wantLabel(t, s, rec.ID, "big.bin", freshness.StaleChanged, freshness.Unknown)
}

func TestSoundEveryReferencedFileStamped(t *testing.T) {
	s, r := soundService(t, func(r *testgit.Repo) {
		for i := range 520 {
			r.Write(fmt.Sprintf("f/%03d.go", i), "package f\n")
		}
	})
	rec := run(t, s, `for i in $(seq -w 0 519); do echo "f/$i.go:1: x"; done`)
	if len(rec.Files) != 520 {
		t.Fatalf("record names %d files, want 520", len(rec.Files))
	}
	r.Write("f/519.go", "package g\n")
	wantLabel(t, s, rec.ID, "f/519.go", freshness.StaleChanged)
}

func TestSoundFileRewrittenByTheCommand(t *testing.T) {
	s, _ := soundService(t, nil)
	rec := run(t, s, `echo "a.go:2: here"; printf 'package a\n\nvar A = 7\n' > a.go`)
	got, why := label(t, s, rec.ID, "a.go")
	if got != freshness.Unknown || !strings.Contains(why, "changed while the command ran") {
		t.Fatalf("label = %s (%s), want unknown: changed while the command ran", got, why)
	}
}

func TestSoundFileFlippingDuringCapture(t *testing.T) {
	s, r := soundService(t, nil)
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a writer flipping between two same-size contents
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			os.WriteFile(r.Path("a.go"), []byte(fmt.Sprintf("package a\n\nvar A = %d\n", i%2)), 0o644)
		}
	}()
	time.Sleep(5 * time.Millisecond)
	var ids []int64
	for range 5 {
		rec, err := s.Capture(context.Background(), CaptureRequest{Input: bytes.NewBufferString("a.go:3: x\n")})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.ID)
	}
	stop()
	wg.Wait()
	for _, c := range []string{"package a\n\nvar A = 0\n", "package a\n\nvar A = 1\n"} {
		r.Write("a.go", c)
		for _, id := range ids {
			if got, why := label(t, s, id, "a.go"); got == freshness.Fresh {
				t.Fatalf("record %d is fresh (%s) for content %q written while it was stamped", id, why, c)
			}
		}
	}
}

// TestSoundSameNameInTwoPackages: `go test ./a ./b` prints a failing test's
// file relative to its package (calc_test.go:7), and both packages have
// one. Whichever failed, the record must not vouch for it by stamping the
// other: it stamps both, so an edit of either is a change.
func TestSoundSameNameInTwoPackages(t *testing.T) {
	s, r := soundService(t, func(r *testgit.Repo) {
		r.Write("go.mod", "module example.com/q\n")
		r.Write("a/calc_test.go", "package a\n")
		r.Write("b/calc_test.go", "package b\n\n// the test\n")
	})
	bin := t.TempDir()
	fake := "#!/bin/sh\nprintf 'ok  \\texample.com/q/a\\t0.003s\\n--- FAIL: TestSub (0.00s)\\n    calc_test.go:3: Sub(3, 2) = 5\\nFAIL\\nFAIL\\texample.com/q/b\\t0.002s\\n'\nexit 1\n"
	if err := os.WriteFile(bin+"/go", []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	tests := []struct {
		line    string
		stamped int // the scope names both packages; go test's own lines say b
	}{
		{"go test ./a ./b", 2},
		{"go test ./...", 1},
	}
	for _, tt := range tests {
		rec, err := s.Run(context.Background(), RunRequest{Argv: []string{"sh", "-c", tt.line}, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Files) != tt.stamped || !slices.ContainsFunc(rec.Files, func(f File) bool { return f.Path == "b/calc_test.go" }) {
			t.Fatalf("%s: stamped %v, want b/calc_test.go among %d", tt.line, rec.Files, tt.stamped)
		}
		checkEachEdit(t, s, r, rec.ID, "b/calc_test.go")
	}
}

// checkEachEdit edits each file in turn, checking that the record is then
// not fresh, and puts it back.
func checkEachEdit(t *testing.T, s *Service, r *testgit.Repo, id int64, files ...string) {
	t.Helper()
	for _, edited := range files {
		t.Run(edited, func(t *testing.T) {
			before, err := os.ReadFile(r.Path(edited))
			if err != nil {
				t.Fatal(err)
			}
			r.Write(edited, string(before)+"// edited\n")
			defer r.Write(edited, string(before))
			shown, err := s.Show(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if shown.Freshness.Label == freshness.Fresh {
				t.Fatalf("fresh after %s, which the output may name, was edited: %+v", edited, shown.Freshness.Files)
			}
		})
	}
}

// TestSoundMakeEnteredDirectory: make -C sub prints util.c:1 relative to
// sub, which it announces; the root has a util.c too. The record must not
// stay fresh after sub/util.c, the file the error is in, is edited.
func TestSoundMakeEnteredDirectory(t *testing.T) {
	s, r := soundService(t, func(r *testgit.Repo) {
		r.Write("util.c", "int f(void) { return 0; }\n")
		r.Write("sub/util.c", "int g(void) { return x; }\n")
	})
	script := `printf "make[1]: Entering directory '%s/sub'\nutil.c:1:22: error: 'x' undeclared\nmake[1]: Leaving directory '%s/sub'\n" "$PWD" "$PWD"; exit 2`
	rec := run(t, s, script)
	checkEachEdit(t, s, r, rec.ID, "sub/util.c")
	ninja := "printf \"ninja: Entering directory \\`sub'\\nutil.c:1:22: error: 'x' undeclared\\n\"; exit 1"
	rec = run(t, s, ninja)
	checkEachEdit(t, s, r, rec.ID, "sub/util.c")
}

// TestSoundCommandMovesFirst: `cd sub && gcc -c util.c` prints util.c:1
// relative to sub; the root has a util.c too.
func TestSoundCommandMovesFirst(t *testing.T) {
	s, r := soundService(t, func(r *testgit.Repo) {
		r.Write("util.c", "int f(void) { return 0; }\n")
		r.Write("sub/util.c", "int g(void) { return x; }\n")
	})
	for _, line := range []string{
		"cd sub && printf \"util.c:1:22: error: 'x' undeclared\\n\"; exit 1",
		"(cd sub; printf \"util.c:1:22: error\\n\")",
	} {
		rec := run(t, s, line)
		checkEachEdit(t, s, r, rec.ID, "sub/util.c")
	}
}

// TestSoundOutputNamingMoreFilesThanKept: past maxRefs distinct references
// the record cannot vouch for the rest, so it is not fresh: one of them may
// be the file that changed.
func TestSoundOutputNamingMoreFilesThanKept(t *testing.T) {
	n := maxRefs + 5
	s, r := soundService(t, func(r *testgit.Repo) {
		for i := range n {
			r.Write(fmt.Sprintf("f/x%04d.go", i), fmt.Sprintf("package f // %d\n", i))
		}
	})
	rec := run(t, s, fmt.Sprintf("for i in $(seq -f %%04g 0 %d); do echo \"f/x$i.go:1: issue\"; done", n-1))
	shown, err := s.Show(context.Background(), rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if shown.Freshness.Label != freshness.Unknown {
		t.Fatalf("label %s for an output naming %d files, %d kept; want unknown", shown.Freshness.Label, n, maxRefs)
	}
	last := shown.Freshness.Files[len(shown.Freshness.Files)-1]
	if last.Path != fmt.Sprintf("f/x%04d.go", maxRefs) || last.Label != freshness.Unknown {
		t.Fatalf("the last file is %+v, want the first one past the limit, unknown", last)
	}
	r.Write(fmt.Sprintf("f/x%04d.go", n-1), "package f // edited\n")
	if shown, _ = s.Show(context.Background(), rec.ID); shown.Freshness.Label == freshness.Fresh {
		t.Fatal("fresh after a file past the limit was edited")
	}
}

// TestSoundOverflowOfPathsThatNeverExisted: the first path past the limit
// names no file; the record is still not fresh (it stands for every path
// after it), and not stale_deleted either (nothing was deleted).
func TestSoundOverflowOfPathsThatNeverExisted(t *testing.T) {
	s, _ := soundService(t, nil)
	rec := run(t, s, fmt.Sprintf("for i in $(seq -f %%04g 0 %d); do echo \"g/y$i.c:1: warning\"; done", maxRefs+3))
	shown, err := s.Show(context.Background(), rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if shown.Freshness.Label != freshness.Unknown {
		t.Fatalf("label %s (%+v), want unknown", shown.Freshness.Label, shown.Freshness.Files)
	}
}
