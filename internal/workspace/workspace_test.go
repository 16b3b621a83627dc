package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testgit"
)

func TestDiscoverFindsTopLevel(t *testing.T) {
	r := testgit.New(t)
	r.Write("a/b/c.txt", "x")
	ws, err := Discover(r.Path("a/b"))
	if err != nil {
		t.Fatal(err)
	}
	if ws.Root != r.Dir || ws.Git == nil {
		t.Fatalf("Discover = %q (git %v), want %q with git", ws.Root, ws.Git != nil, r.Dir)
	}
}

func TestDiscoverOutsideGit(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	ws, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ws.Root != dir || ws.Git != nil {
		t.Fatalf("Discover = %+v, want root %s without git", ws, dir)
	}
}

func TestDiscoverMissingDir(t *testing.T) {
	_, err := Discover(filepath.Join(t.TempDir(), "nope"))
	if err == nil {
		t.Fatal("want error for a missing directory")
	}
}

func TestRel(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	ws := &Workspace{Root: dir}
	tests := []struct {
		in, cwd, want string
		outside       bool
	}{
		{in: "a/b.go", cwd: dir, want: "a/b.go"},
		{in: "./a//b/../c.go", cwd: dir, want: "a/c.go"},
		{in: "c.go", cwd: filepath.Join(dir, "sub"), want: "sub/c.go"},
		{in: filepath.Join(dir, "x", "y"), cwd: "/", want: "x/y"},
		{in: ".", cwd: dir, want: "."},
		{in: "../etc/passwd", cwd: dir, outside: true},
		{in: "/etc/passwd", cwd: dir, outside: true},
		{in: "sub/../../x", cwd: dir, outside: true},
	}
	for _, tt := range tests {
		got, err := ws.Rel(tt.in, tt.cwd)
		if tt.outside {
			if !errors.Is(err, ErrOutsideRoot) {
				t.Errorf("Rel(%q) = %q, %v; want ErrOutsideRoot", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Rel(%q, %q) = %q, %v; want %q", tt.in, tt.cwd, got, err, tt.want)
		}
	}
}

func TestRelThroughSymlinkedRoot(t *testing.T) {
	real, _ := filepath.EvalSymlinks(t.TempDir())
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	ws := &Workspace{Root: real}
	got, err := ws.Rel(filepath.Join(link, "f.go"), "/")
	if err != nil || got != "f.go" {
		t.Fatalf("Rel through symlink = %q, %v; want f.go", got, err)
	}
}

func TestClean(t *testing.T) {
	if got, err := Clean("a/./b/../c"); err != nil || got != "a/c" {
		t.Errorf("Clean = %q, %v", got, err)
	}
	for _, bad := range []string{"../x", "/abs", ".."} {
		if _, err := Clean(bad); !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("Clean(%q) err = %v, want ErrOutsideRoot", bad, err)
		}
	}
}

func TestStatusNoCommits(t *testing.T) {
	r := testgit.New(t)
	r.Write("new.txt", "x")
	ws, _ := Discover(r.Dir)
	st, err := ws.Git.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if e, listed := st.Entry("new.txt"); st.Head != "" || st.Branch != "main" || !st.Dirty() || !listed || e.Kind != '?' {
		t.Fatalf("status = %+v", st)
	}
	id, err := ws.Git.RepoID(context.Background())
	if err != nil || id != "" {
		t.Fatalf("RepoID = %q, %v; want empty", id, err)
	}
	if _, _, err := ws.Git.Identity(context.Background(), st.Head); err == nil {
		t.Fatal("Identity of no commit: no error")
	}
}

func TestStatusClassifies(t *testing.T) {
	r := testgit.New(t)
	r.Write("clean.txt", "c")
	r.Write("mod.txt", "m")
	r.Write("del.txt", "d")
	r.Write(".gitignore", "build/\n*.log\n")
	root := r.Commit("init")
	r.Write("mod.txt", "m2")
	r.Remove("del.txt")
	r.Write("untracked/u.txt", "u")
	r.Write("build/out.bin", "b")
	r.Write("x.log", "l")
	r.Write("name with space.txt", "s")

	ws, _ := Discover(r.Dir)
	ctx := context.Background()
	st, err := ws.Git.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Head != root || st.Branch != "main" {
		t.Errorf("head/branch = %s %s", st.Head, st.Branch)
	}
	want := map[string]byte{"mod.txt": '1', "del.txt": '1', "untracked/u.txt": '?', "name with space.txt": '?'}
	for _, p := range []string{"clean.txt", "mod.txt", "del.txt", "untracked/u.txt", "build/out.bin", "x.log", "name with space.txt"} {
		e, listed := st.Entry(p)
		if k, ok := want[p]; listed != ok || e.Kind != k {
			t.Errorf("%s: listed %v as %q, want listed %v as %q", p, listed, e.Kind, ok, k)
		}
	}
	if !st.Deleted("del.txt") || st.Deleted("mod.txt") {
		t.Error("Deleted misclassified")
	}
	if !st.Dirty() {
		t.Error("want dirty")
	}
	id, err := ws.Git.RepoID(ctx)
	if err != nil || id != root {
		t.Errorf("RepoID = %q, %v; want %s", id, err, root)
	}
}

func TestStatusIgnoredOnlyIsNotDirty(t *testing.T) {
	r := testgit.New(t)
	r.Write(".gitignore", "*.tmp\n")
	r.Commit("init")
	r.Write("a.tmp", "x")
	ws, _ := Discover(r.Dir)
	st, err := ws.Git.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Dirty() {
		t.Error("ignored files must not make the tree dirty")
	}
	if e, listed := st.Entry("a.tmp"); listed {
		t.Errorf("an ignored file is listed: %+v (Status lists none, so git can use its untracked cache)", e)
	}
}

func TestOpenSubdirectoryRoot(t *testing.T) {
	r := testgit.New(t)
	r.Write("sub/a.txt", "a")
	r.Write("other/b.txt", "b")
	r.Commit("init")
	r.Write("sub/a.txt", "a2")
	r.Write("other/b.txt", "b2")
	ws, err := Open(r.Path("sub"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := ws.Git.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range st.Entries() {
		paths = append(paths, e.Path)
	}
	if !slices.Equal(paths, []string{"a.txt"}) {
		t.Fatalf("entries = %v, want [a.txt]", paths)
	}
}

// A status is one git status (and at most one listing of untracked files
// beside it), however many paths its answer serves.
func TestStatusIsOneGitStatus(t *testing.T) {
	// A status slower than refreshFloor adds a refresh and a second status
	// (refresh.go, tested there): on a loaded machine this one's could be.
	// The count asked here is of the fast path, whatever the machine.
	defer func(f time.Duration) { refreshFloor = f }(refreshFloor)
	refreshFloor = time.Duration(1<<63 - 1)
	for _, files := range []int{1, 300} {
		r := testgit.New(t)
		for i := range files {
			r.Write(fmt.Sprintf("d%d/f%d", i%7, i), "a")
		}
		r.Commit("init")
		for i := range files {
			r.Write(fmt.Sprintf("d%d/f%d", i%7, i), "changed")
			r.Write(fmt.Sprintf("new%d/f%d", i%5, i), "untracked")
		}
		ws, _ := Discover(r.Dir)
		var mu sync.Mutex
		var calls []string
		ws.Git.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
			mu.Lock()
			calls = append(calls, args[1]) // after --literal-pathspecs
			mu.Unlock()
			return ExecGit(ctx, dir, args...)
		}
		st, err := ws.Git.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !st.Dirty() || len(st.Entries()) != files+min(files, 5) {
			t.Fatalf("%d files: the status lists %d entries, want %d", files, len(st.Entries()), files+min(files, 5))
		}
		if count(calls, "status") != 1 || len(calls) > 2 || (len(calls) == 2 && count(calls, "ls-files") != 1) {
			t.Fatalf("%d files: git ran %v for one status, want one status and at most one ls-files", files, calls)
		}
	}
}

func TestParseStatusMalformed(t *testing.T) {
	id := func(s string) (string, bool) { return s, true }
	for _, in := range []string{"Z what\x00", "1 .M\x00", "# branch.ab nonsense\x00"} {
		if _, err := parseStatus([]byte(in), id); err == nil {
			t.Errorf("parseStatus(%q) = nil error", in)
		}
	}
}

func FuzzParseStatus(f *testing.F) {
	f.Add([]byte("# branch.oid abc\x00# branch.head main\x001 .M N... 100644 100644 100644 a b f.txt\x00? u/\x00! ign/\x00"))
	f.Add([]byte("2 R. N... 100644 100644 100644 a b R100 new\x00old\x00u UU N... 1 1 1 1 a b c x\x00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		st, err := parseStatus(in, func(s string) (string, bool) { return s, true })
		if err == nil {
			_ = st.Dirty()
			_, _ = st.Entry("f.txt")
			_ = st.Deleted("f.txt")
		}
	})
}

func TestExcludeFromGitOnce(t *testing.T) {
	r := testgit.New(t)
	ws, _ := Discover(r.Dir)
	for range 2 {
		if err := ws.ExcludeFromGit(".freshctx"); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(r.Path(".git/info/exclude"))
	if n := strings.Count(string(b), "/.freshctx/"); n != 1 {
		t.Fatalf("pattern written %d times:\n%s", n, b)
	}
	r.Write(".freshctx/x.db", "x")
	st, _ := ws.Git.Status(context.Background())
	if st.Dirty() {
		t.Fatal("excluded store makes the tree dirty")
	}
}

// A store the user put inside the work tree is excluded with its
// companions, and nothing else of its folder is.
func TestExcludeStoreFromGit(t *testing.T) {
	r := testgit.New(t)
	ws, _ := Discover(r.Dir)
	for range 2 {
		if err := ws.ExcludeStoreFromGit("cache/x.db"); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"cache/x.db", "cache/x.db-wal", "cache/x.db-shm", "cache/x.db-blobs/ab/cd.zst", "cache/notes.txt"} {
		r.Write(f, "x")
	}
	files, err := ws.Git.LsFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(files, []string{"cache/notes.txt"}) {
		t.Fatalf("listed %q, want the folder's own file alone", files)
	}
	b, _ := os.ReadFile(r.Path(".git/info/exclude"))
	if n := strings.Count(string(b), "/cache/x.db\n"); n != 1 {
		t.Fatalf("pattern written %d times:\n%s", n, b)
	}
}

func TestRepoIDSameInEveryClone(t *testing.T) {
	r := testgit.New(t)
	r.Write("a", "a")
	root := r.Commit("init")
	r.Write("b", "b")
	r.Commit("second")
	clone := filepath.Join(t.TempDir(), "clone")
	r.Git("clone", "-q", r.Dir, clone)
	for _, dir := range []string{r.Dir, clone} {
		ws, err := Discover(dir)
		if err != nil {
			t.Fatal(err)
		}
		id, err := ws.Git.RepoID(context.Background())
		if err != nil || id != root {
			t.Fatalf("RepoID in %s = %q, %v; want the root commit %s", dir, id, err, root)
		}
	}
}

// Where the repository keeps git's untracked cache, the status freshctx
// asks for must be one git answers from it: asking for ignored files too
// made git walk every folder again, a status a third slower than the
// user's own. git's trace of the status says whether the cache was read:
// it reports the cache's counts ("opendir") only then.
func TestStatusUsesTheUntrackedCache(t *testing.T) {
	r := testgit.New(t)
	for i := range 20 {
		r.Write(fmt.Sprintf("d%d/f.txt", i), "x")
	}
	r.Write(".gitignore", "build/\n")
	r.Write("build/out.o", "o")
	r.Commit("init")
	r.Write("d3/new.txt", "untracked")
	r.Git("config", "core.untrackedCache", "true")
	r.Git("status") // the user's own status writes the cache into the index
	t.Setenv("GIT_TRACE2_EVENT_NESTING", "10")
	ws, _ := Discover(r.Dir)
	var mu sync.Mutex // a status may run two gits at once
	var b []byte      // the status's own trace, which freshctx reads
	ws.Git.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		out, err := ExecGit(ctx, dir, args...)
		if sink := traceSink(ctx); sink != nil {
			mu.Lock()
			b = append(b, sink.Bytes()...)
			mu.Unlock()
		}
		return out, err
	}
	st, err := ws.Git.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if e, listed := st.Entry("d3/new.txt"); !listed || e.Kind != '?' || !st.Dirty() {
		t.Fatalf("the untracked file: %+v listed %v, dirty %v", e, listed, st.Dirty())
	}
	if !strings.Contains(string(b), `"key":"opendir"`) {
		t.Fatalf("git did not answer the status from its untracked cache; its trace:\n%s", b)
	}
}

// MeasureStatus times the status a run asks for and says whether git's
// untracked cache answered it: not before the repository keeps one, and
// then yes.
func TestMeasureStatus(t *testing.T) {
	r := testgit.New(t)
	r.Write("a/f.txt", "x")
	r.Commit("init")
	ws, _ := Discover(r.Dir)
	ctx := context.Background()
	cost, err := ws.Git.MeasureStatus(ctx)
	if err != nil || cost.Took <= 0 || cost.UntrackedCache || !cost.Traced {
		t.Fatalf("without the cache: %+v, %v", cost, err)
	}
	r.Git("config", "core.untrackedCache", "true")
	r.Git("status")
	if cost, err = ws.Git.MeasureStatus(ctx); err != nil || !cost.UntrackedCache {
		t.Fatalf("with the cache: %+v, %v", cost, err)
	}
}
