package registry

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/teststore"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/sha"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testgit"
)

// countingFS counts the files the registry opens.
type countingFS struct {
	freshness.OSFS
	opens atomic.Int64
}

func (c *countingFS) Open(name string) (io.ReadCloser, error) {
	c.opens.Add(1)
	return c.OSFS.Open(name)
}

type fixture struct {
	t   *testing.T
	r   *testgit.Repo
	svc *Service
	fs  *countingFS
}

func newFixture(t *testing.T, r *testgit.Repo) *fixture {
	t.Helper()
	ws := teststore.Workspace(t, r.Dir)
	st := teststore.Open(t, "", store.Options{})
	fs := &countingFS{}
	// The clock runs an hour ahead so fingerprints are settled when taken:
	// the tests' writes are milliseconds apart, far more than one tick.
	ahead := func() time.Time { return time.Now().Add(time.Hour) }
	// The package's tests take git's narrow way (what a large registry
	// does); the CLI scripts and the model test cover the whole status.
	return &fixture{t: t, r: r, fs: fs, svc: &Service{WS: ws, Store: st, Cwd: r.Dir, FS: fs, Now: ahead, WholeStatusUnder: -1}}
}

func (f *fixture) sync() *SyncResult {
	f.t.Helper()
	res, err := f.svc.Sync(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	// Every sync says how many files the registry holds, whichever way it
	// came to know (trust counts them from its scan, not the rows).
	if rows := rowsOf(f.t, f.svc); res.Files != rows {
		f.t.Fatalf("%s says %d files; the registry holds %d", res.Action, res.Files, rows)
	}
	return res
}

// rowsOf counts svc's rows the plain way (rootRows), which countRows
// must agree with.
func rowsOf(tb testing.TB, svc *Service) int {
	tb.Helper()
	return viewCount(tb, svc.Store, func(tx *store.Tx) (int, error) { return rootRows(context.Background(), tx, svc.WS.Root) })
}

// rootRows counts root's rows by walking them.
func rootRows(ctx context.Context, tx *store.Tx, root string) (int, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM registry_files WHERE root = ?`, root).Scan(&n)
	return n, err
}

// viewCount is count's answer in a read transaction of st.
func viewCount(tb testing.TB, st *store.Store, count func(tx *store.Tx) (int, error)) int {
	tb.Helper()
	var n int
	err := st.View(context.Background(), func(tx *store.Tx) error {
		var err error
		n, err = count(tx)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

func (f *fixture) list() *ListResult {
	f.t.Helper()
	res, err := f.svc.List(context.Background(), false)
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

func (f *fixture) file(path string) File {
	f.t.Helper()
	for _, x := range f.list().Files {
		if x.Path == path {
			return x
		}
	}
	f.t.Fatalf("%s not in the registry", path)
	return File{}
}

func (f *fixture) has(path string) bool {
	for _, x := range f.list().Files {
		if x.Path == path {
			return true
		}
	}
	return false
}

func (f *fixture) summarize(path, text string) {
	f.t.Helper()
	if _, err := f.svc.Summarize(context.Background(), []Summary{{Path: path, Summary: text}}); err != nil {
		f.t.Fatal(err)
	}
}

// project is a small committed repository.
func project(t *testing.T) *testgit.Repo {
	r := testgit.New(t)
	r.Write("main.go", "package main\n\nfunc main() {}\n")
	r.Write("lib/calc.go", "package lib\n\nfunc Add(a, b int) int { return a + b }\n")
	r.Write("README.md", "# demo\n")
	r.Commit("init")
	return r
}

func TestSyncEmptyRepoWritesNothing(t *testing.T) {
	f := newFixture(t, testgit.New(t))
	if res := f.sync(); res.Action != ActionEmpty || res.Files != 0 {
		t.Fatalf("sync = %+v", res)
	}
	var n int
	f.svc.Store.DB().QueryRow("SELECT (SELECT count(*) FROM registry_files) + (SELECT count(*) FROM registry_state)").Scan(&n)
	if n != 0 {
		t.Fatal("an empty repository wrote to the registry")
	}
}

func TestEmptyRepoFirstCloseRegistersTouchedFiles(t *testing.T) {
	r := testgit.New(t)
	f := newFixture(t, r)
	f.sync()
	r.Write("a.go", "package a\n")
	r.Write("b.go", "package b\n")
	r.Commit("first task")
	r.Write("untouched.txt", "not committed") // not part of the task
	res, err := f.svc.Close(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Updated, []string{"a.go", "b.go"}) || !slices.Equal(res.NeedsSummary, []string{"a.go", "b.go"}) {
		t.Fatalf("close = %+v", res)
	}
	if l := f.list(); l.Counts.Files != 2 || f.has("untouched.txt") {
		t.Fatalf("registry = %+v", l.Files)
	}
}

func TestBootstrapOnceThenTrustWithoutReading(t *testing.T) {
	f := newFixture(t, project(t))
	res := f.sync()
	if res.Action != ActionBootstrap || res.Files != 3 || res.New != 3 {
		t.Fatalf("first sync = %+v", res)
	}
	if got := f.file("lib/calc.go"); got.Summary != nil || got.Lang != "go" || got.Digest == "" {
		t.Fatalf("bootstrapped row = %+v", got)
	}
	f.fs.opens.Store(0)
	res = f.sync()
	if res.Action != ActionTrust || res.Files != 3 {
		t.Fatalf("second sync = %+v", res)
	}
	if n := f.fs.opens.Load(); n != 0 {
		t.Fatalf("trust read %d files", n)
	}
}

// TestDirtyRowsAreNotReadAgain: a file left changed in the work tree is
// examined once; the syncs after, while nothing moves its fingerprint and
// git names it as neither staged nor committed, neither read it nor trust
// the tree (it is not clean). Staging it, committing it and reverting it
// each make it a candidate again, and the tree clean once it is.
func TestDirtyRowsAreNotReadAgain(t *testing.T) {
	f := newFixture(t, project(t))
	f.sync()
	changed := "package lib\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Neg(a int) int { return -a }\n"
	f.r.Write("lib/calc.go", changed)
	if res := f.sync(); res.Action != ActionVerify || res.Mismatch != 1 || res.Candidates != 1 {
		t.Fatalf("sync after the edit = %+v", res)
	}
	f.fs.opens.Store(0)
	for range 2 {
		if res := f.sync(); res.Action != ActionVerify || res.Candidates != 0 || res.Mismatch != 0 {
			t.Fatalf("sync of a tree left dirty = %+v", res)
		}
	}
	if n := f.fs.opens.Load(); n != 0 {
		t.Fatalf("syncs of a tree left dirty read %d files", n)
	}
	if got := f.file("lib/calc.go"); got.Digest != sha.Bytes([]byte(changed)).String() {
		t.Fatalf("row of the file left changed: %+v", got)
	}
	f.r.Git("add", "lib/calc.go")
	if res := f.sync(); res.Candidates != 1 || res.Match != 1 {
		t.Fatalf("sync after staging = %+v", res)
	}
	f.r.Commit("neg")
	if res := f.sync(); res.Action != ActionVerify || res.Candidates != 1 {
		t.Fatalf("sync after the commit = %+v", res)
	}
	if res := f.sync(); res.Action != ActionTrust {
		t.Fatalf("sync of the committed tree = %+v", res)
	}
	f.r.Write("README.md", "# demo, edited\n")
	f.sync()
	f.r.Write("README.md", "# demo\n") // reverted: clean again
	if res := f.sync(); res.Candidates != 1 || res.Mismatch != 1 {
		t.Fatalf("sync after the revert = %+v", res)
	}
	if res := f.sync(); res.Action != ActionTrust {
		t.Fatalf("sync of the reverted tree = %+v", res)
	}
}

// TestUntrackedRowsAreAlwaysExamined: an untracked file is examined at
// every sync, unlike a tracked one left changed, since an ignore rule can
// change git's view of it without touching it: once ignored, it is seen
// as no change of the tree, and the tree is trusted again.
func TestUntrackedRowsAreAlwaysExamined(t *testing.T) {
	f := newFixture(t, project(t))
	f.sync()
	f.r.Write("notes.txt", "scratch\n")
	f.sync()
	if res := f.sync(); res.Candidates != 1 || res.Match != 1 {
		t.Fatalf("sync with an untracked file = %+v", res)
	}
	if err := os.WriteFile(f.r.Path(".git/info/exclude"), []byte("notes.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.sync()
	if res := f.sync(); res.Action != ActionTrust {
		t.Fatalf("sync once the untracked file is ignored = %+v", res)
	}
}

func TestDirtyTreeMarksMismatchAndKeepsSummary(t *testing.T) {
	f := newFixture(t, project(t))
	f.sync()
	f.summarize("lib/calc.go", "Add two ints.")
	f.sync() // trust again after summarizing
	f.r.Write("lib/calc.go", "package lib\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Sub(a, b int) int { return a - b }\n")
	res := f.sync()
	if res.Action != ActionVerify || res.Mismatch != 1 || res.Match != 0 || res.Candidates != 1 {
		t.Fatalf("sync = %+v", res)
	}
	got := f.file("lib/calc.go")
	if got.Summary == nil || *got.Summary != "Add two ints." || !got.SummaryStale {
		t.Fatalf("summary = %+v", got)
	}
	if got.LinesAdded != 2 || got.LinesRemoved != 0 {
		t.Fatalf("drift = +%d -%d, want +2 -0", got.LinesAdded, got.LinesRemoved)
	}
	// Reverting to what the summary describes makes it fresh again.
	f.r.Write("lib/calc.go", "package lib\n\nfunc Add(a, b int) int { return a + b }\n")
	f.sync()
	if got := f.file("lib/calc.go"); got.SummaryStale {
		t.Fatal("reverted file still flagged stale")
	}
}

// A listing never speaks of a file as it was before an edit the registry
// has not seen: ListCurrent syncs first, in O(changed).
func TestListCurrentSeesAnEditSyncHasNot(t *testing.T) {
	f := newFixture(t, project(t))
	if res, err := f.svc.ListCurrent(context.Background(), false); err != nil || len(res.Files) != 0 || res.Synced != "" {
		t.Fatalf("an empty registry: %+v, %v (listed without a bootstrap)", res, err)
	}
	f.sync()
	f.summarize("lib/calc.go", "Add two ints.")
	f.r.Write("lib/calc.go", "package lib\n\nfunc Add(a, b int) int { return a - b }\n")
	if got := f.file("lib/calc.go"); got.SummaryStale {
		t.Fatal("the stored listing already knows: the test proves nothing")
	}
	res, err := f.svc.ListCurrent(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Synced != ActionVerify || len(res.Files) != 1 || res.Files[0].Path != "lib/calc.go" || !res.Files[0].SummaryStale {
		t.Fatalf("listing after an edit = %+v", res)
	}
}

// team is an upstream with two clones: ours (registered) and a teammate's.
func team(t *testing.T) (ours *fixture, mate *testgit.Repo) {
	up := testgit.Bare(t)
	seed := testgit.Clone(t, up.Dir)
	seed.Write("main.go", "package main\n\nfunc main() {}\n")
	seed.Write("lib/calc.go", "package lib\n\nfunc Add(a, b int) int { return a + b }\n")
	seed.Write("old.go", "package main\n")
	seed.Commit("init")
	seed.Git("push", "-q", "origin", "main")
	ours = newFixture(t, testgit.Clone(t, up.Dir))
	mate = testgit.Clone(t, up.Dir)
	return ours, mate
}

func TestPullMarksStaleDeletesAndAdds(t *testing.T) {
	f, mate := team(t)
	f.sync()
	f.summarize("lib/calc.go", "Add two ints.")
	f.summarize("old.go", "Old entry point.")
	if res := f.sync(); res.Action != ActionTrust {
		t.Fatalf("before pull: %+v", res)
	}
	mate.Write("lib/calc.go", "package lib\n\nfunc Add(a, b int) int { return b + a }\n")
	mate.Remove("old.go")
	mate.Write("lib/new.go", "package lib\n")
	mate.Commit("teammate")
	mate.Git("push", "-q", "origin", "main")
	f.r.Git("pull", "-q", "--ff-only")

	res := f.sync()
	if res.Action != ActionVerify || res.Mismatch != 1 || res.Missing != 1 || res.New != 1 || res.Fallback != "" {
		t.Fatalf("after pull: %+v", res)
	}
	if got := f.file("lib/calc.go"); !got.SummaryStale || got.Summary == nil || got.LinesAdded != 1 || got.LinesRemoved != 1 {
		t.Fatalf("changed file = %+v", got)
	}
	if f.has("old.go") {
		t.Fatal("a file deleted upstream kept its row")
	}
	if got := f.file("lib/new.go"); got.Summary != nil || got.SummaryStale {
		t.Fatalf("added file = %+v", got)
	}
	if res := f.sync(); res.Action != ActionTrust {
		t.Fatalf("after verifying: %+v", res)
	}
}

func TestBehindUpstreamVerifies(t *testing.T) {
	f, mate := team(t)
	f.sync()
	mate.Write("main.go", "package main // teammate\n")
	mate.Commit("ahead")
	mate.Git("push", "-q", "origin", "main")
	f.r.Git("fetch", "-q")
	res := f.sync()
	if res.Action != ActionVerify || res.Mismatch+res.Missing+res.New != 0 {
		t.Fatalf("behind upstream: %+v", res)
	}
}

func TestRebasedAwayFallsBackToFullPass(t *testing.T) {
	f := newFixture(t, project(t))
	f.r.Write("wip.go", "package main // wip\n")
	f.r.Commit("wip")
	f.sync()
	if res := f.sync(); res.Action != ActionTrust {
		t.Fatalf("%+v", res)
	}
	f.r.Git("reset", "-q", "--hard", "HEAD~1")
	f.r.Write("wip.go", "package main // reworked\n")
	f.r.Commit("reworked")
	res := f.sync()
	if res.Action != ActionVerify || res.Fallback != "full" || res.Mismatch != 1 || res.Match != 3 {
		t.Fatalf("after rebase: %+v", res)
	}
}

func TestVerifyIsReadOnlyUnlessApplied(t *testing.T) {
	f := newFixture(t, project(t))
	f.sync()
	f.r.Write("main.go", "package main // changed\n")
	before := f.file("main.go").Digest
	res, err := f.svc.Verify(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Applied || !slices.Contains(res.Verdicts, Verdict{Path: "main.go", Verdict: Mismatch}) {
		t.Fatalf("verify = %+v", res)
	}
	if f.file("main.go").Digest != before {
		t.Fatal("verify without --apply wrote")
	}
	if _, err := f.svc.Verify(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	if f.file("main.go").Digest == before {
		t.Fatal("verify --apply did not write")
	}
}

func TestDirtyAtVerifyThenRevertedIsCaught(t *testing.T) {
	f := newFixture(t, project(t))
	f.sync()
	f.r.Write("main.go", "package main // dirty\n")
	f.sync() // registers the dirty content
	f.r.Git("checkout", "--", "main.go")
	res := f.sync()
	if res.Action != ActionVerify || res.Mismatch != 1 {
		t.Fatalf("after revert: %+v", res)
	}
	if res := f.sync(); res.Action != ActionTrust {
		t.Fatalf("then: %+v", res)
	}
}

// TestStagedDeletionAtBootstrapIsWatched: a file whose deletion is staged
// when the registry is first built (the old name of a git mv) is listed by
// neither ls-files nor a later status once a reset brings it back clean; it
// must get its row all the same, whichever way the registry asks git.
func TestStagedDeletionAtBootstrapIsWatched(t *testing.T) {
	for _, under := range []int{-1, 0} {
		f := newFixture(t, project(t))
		f.svc.WholeStatusUnder = under
		f.r.Git("mv", "main.go", "moved.go")
		if res := f.sync(); res.Action != ActionBootstrap {
			t.Fatalf("first sync: %+v", res)
		}
		f.r.Git("reset", "-q", "--hard")
		f.sync()
		if !f.has("main.go") || f.has("moved.go") {
			t.Fatalf("git view %d: after the reset main.go has a row: %v, moved.go: %v", under, f.has("main.go"), f.has("moved.go"))
		}
	}
}

func TestSkipsAreCountedByReason(t *testing.T) {
	r := project(t)
	r.Write("go.sum", "x h1:abc\n")
	r.Write("vendor/dep/dep.go", "package dep\n")
	r.Write("logo.png", "\x89PNG\x00\x00binary")
	r.Write("api.pb.go", "package api\n")
	r.Write("gen.go", "// Code generated by stringer; DO NOT EDIT.\n\npackage main\n")
	r.Write("big.txt", strings.Repeat("x", 5000))
	outside := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, r.Path("notes.txt")); err != nil {
		t.Fatal(err)
	}
	r.Commit("more")
	f := newFixture(t, r)
	f.svc.MaxFileSize = 4096
	f.sync()
	l := f.list()
	want := map[string]int{SkipLockfile: 1, SkipVendor: 1, SkipBinary: 1, SkipGenerated: 2, SkipTooLarge: 1, SkipOutsideRoot: 1}
	for k, v := range want {
		if l.Counts.Skipped[k] != v {
			t.Errorf("skipped[%s] = %d, want %d (all %v)", k, l.Counts.Skipped[k], v, l.Counts.Skipped)
		}
	}
	if l.Counts.Files != 3 || l.Counts.Unsummarized != 3 {
		t.Fatalf("counts = %+v", l.Counts)
	}
}

func TestCloseFlagsChangedSummariesAndAdvances(t *testing.T) {
	f := newFixture(t, project(t))
	f.sync()
	f.summarize("lib/calc.go", "Add two ints.")
	f.summarize("main.go", "Entry point.")
	f.r.Write("lib/calc.go", "package lib\n\nfunc Add(a, b int) int { return a + b + 0 }\n")
	f.r.Write("lib/mul.go", "package lib\n")
	f.r.Commit("task")
	res, err := f.svc.Close(context.Background(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Updated, []string{"lib/calc.go", "lib/mul.go"}) ||
		!slices.Equal(res.NeedsSummary, []string{"lib/calc.go", "lib/mul.go"}) || !res.Advanced || res.LastVerifiedSHA != res.Commit {
		t.Fatalf("close = %+v", res)
	}
	if got := f.file("main.go"); got.SummaryStale {
		t.Fatal("an untouched summary was flagged")
	}
	if res := f.sync(); res.Action != ActionTrust {
		t.Fatalf("after close: %+v", res)
	}
	if l := f.list(); l.LastVerifiedSHA != res.Commit {
		t.Fatalf("last_verified_sha = %s, want %s", l.LastVerifiedSHA, res.Commit)
	}
}

func TestNotAGitRepository(t *testing.T) {
	f := newFixture(t, testgit.Plain(t, t.TempDir()))
	if _, err := f.svc.Sync(context.Background()); err == nil || !strings.Contains(err.Error(), "git repository") {
		t.Fatalf("err = %v", err)
	}
}

// TestConflictedFilesHaveRows: in a merge stopped on conflicts, git's
// status letters speak of the two sides ("DU": deleted by us, modified by
// them), not of a deletion staged in the index. Every conflicted file left
// in the work tree has a row with its bytes, in both git views, whether the
// registry starts during the conflict or was kept before it.
// mergeInConflict merges branch into r's checked-out branch, which must
// stop on conflicts.
func mergeInConflict(t *testing.T, r *testgit.Repo, branch string) {
	t.Helper()
	merge := exec.Command("git", "merge", "-q", branch)
	merge.Dir, merge.Env = r.Dir, append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.Dir,
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := merge.CombinedOutput(); err == nil || !strings.Contains(string(out), "CONFLICT") {
		t.Fatalf("the merge was meant to stop on conflicts: %v\n%s", err, out)
	}
}

func TestConflictedFilesHaveRows(t *testing.T) {
	for _, under := range []int{-1, 0} {
		for _, before := range []bool{false, true} {
			r := project(t)
			r.Write("gone-here.txt", "one\n")
			r.Write("gone-there.txt", "one\n")
			r.Write("both.txt", "one\n")
			r.Commit("base")
			r.Git("checkout", "-q", "-b", "side")
			r.Write("gone-here.txt", "changed on side\n")
			r.Remove("gone-there.txt")
			r.Write("both.txt", "side\n")
			r.Write("added.txt", "side\n")
			r.Commit("side")
			r.Git("checkout", "-q", "-")
			r.Remove("gone-here.txt")
			r.Write("gone-there.txt", "changed here\n")
			r.Write("both.txt", "here\n")
			r.Write("added.txt", "here\n")
			r.Commit("here")
			f := newFixture(t, r)
			f.svc.WholeStatusUnder = under
			if before {
				f.sync()
			}
			mergeInConflict(t, r, "side")
			f.sync()
			for _, p := range []string{"gone-here.txt", "gone-there.txt", "both.txt", "added.txt"} {
				data, err := os.ReadFile(r.Path(p))
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				if !f.has(p) {
					t.Fatalf("git view %d, synced before: %v: conflicted %s has no row", under, before, p)
				}
				if got, want := f.file(p).Digest, fmt.Sprintf("%x", sha256.Sum256(data)); got != want {
					t.Fatalf("git view %d, synced before: %v: %s has digest %.12s, its bytes %.12s", under, before, p, got, want)
				}
			}
		}
	}
}

// TestIntentToAddGetsARow: a file added with git add -N is in the index but
// neither staged nor untracked; a registry small enough to read git's
// whole status once missed it (verify said new=0), a larger one asked
// git diff-index, which lists it. Both register it.
func TestIntentToAddGetsARow(t *testing.T) {
	for name, wholeStatusUnder := range map[string]int{"whole status": 0, "git's narrow way": -1} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, project(t))
			f.svc.WholeStatusUnder = wholeStatusUnder
			f.sync()
			f.r.Write("new.go", "package main\n")
			f.r.Git("add", "-N", "new.go")
			v, err := f.svc.Verify(context.Background(), false)
			if err != nil {
				t.Fatal(err)
			}
			if v.New != 1 {
				t.Fatalf("verify = %+v, want new.go new", v)
			}
			if res := f.sync(); res.New != 1 || !f.has("new.go") {
				t.Fatalf("sync = %+v: new.go has no row", res)
			}
		})
	}
}

// TestApplyWritesInShortTransactions: a bootstrap of a large repository
// held the store's write lock for all of its rows at once, and a run beside
// it waited seconds. Rows are written a chunk at a time; stopped between
// chunks (a kill), the rows written are right and the next sync, finding
// no saved state, examines everything again and ends as one pass would.
func TestApplyWritesInShortTransactions(t *testing.T) {
	r := testgit.New(t)
	for i := range 23 {
		r.Write(fmt.Sprintf("f%02d.go", i), fmt.Sprintf("package f // %d\n", i))
	}
	r.Commit("init")
	f := newFixture(t, r)
	defer func(n int, fault func(int) error) { applyChunk, applyFault = n, fault }(applyChunk, applyFault)
	applyChunk = 5
	chunks := 0
	applyFault = func(int) error {
		if chunks++; chunks == 3 {
			return errors.New("killed")
		}
		return nil
	}
	if _, err := f.svc.Sync(context.Background()); err == nil {
		t.Fatal("the stopped bootstrap succeeded")
	}
	if n := len(f.list().Files); n != 10 {
		t.Fatalf("%d rows after two chunks of five were written, want 10", n)
	}
	applyFault = func(int) error { chunks++; return nil }
	chunks = 0
	res := f.sync()
	if res.Files != 23 || len(f.list().Files) != 23 || chunks < 4 {
		t.Fatalf("after the next sync: %+v, %d chunks", res, chunks)
	}
	if again := f.sync(); again.Action != ActionTrust {
		t.Fatalf("the sync after that = %+v, want trust", again)
	}
}

// TestSkipListFollowsTheFiles: a file's skip reason changes with it, a file
// no longer skipped leaves the list and gets a row, and a skipped file whose
// deletion is committed leaves the list.
func TestSkipListFollowsTheFiles(t *testing.T) {
	r := project(t)
	r.Write("big.txt", strings.Repeat("x", 5000))
	r.Write("logo.png", "\x89PNG\x00\x00binary")
	r.Write("go.sum", "x h1:abc\n")
	r.Commit("skips")
	f := newFixture(t, r)
	f.svc.MaxFileSize = 4096
	f.sync()
	if got := f.list().Counts.Skipped; got[SkipTooLarge] != 1 || got[SkipBinary] != 1 || got[SkipLockfile] != 1 {
		t.Fatalf("skipped = %v", got)
	}
	r.Write("big.txt", "small now\n")                 // no longer skipped
	r.Write("logo.png", strings.Repeat("\x00", 5000)) // skipped for another reason
	os.Remove(r.Path("go.sum"))                       // gone
	r.Commit("changes")
	f.sync()
	l := f.list()
	if got := l.Counts.Skipped; got[SkipTooLarge] != 1 || got[SkipBinary] != 0 || got[SkipLockfile] != 0 || len(got) != 1 {
		t.Fatalf("after the changes, skipped = %v; want logo.png too large alone", got)
	}
	if !f.has("big.txt") || f.has("logo.png") {
		t.Fatalf("big.txt has a row: %v, logo.png: %v", f.has("big.txt"), f.has("logo.png"))
	}
}

// TestCountRowsOfASharedStore: a store that holds the registries of two
// work trees (--store naming one store for both) counts each tree's rows
// alone, whichever side of the other its root sorts on; a store of one
// tree counts the same rows from the whole table.
func TestCountRowsOfASharedStore(t *testing.T) {
	parent := t.TempDir()
	st := teststore.Open(t, filepath.Join(parent, "shared.db"), store.Options{})
	svcs := map[string]*Service{}
	for name, files := range map[string]int{"a": 3, "b": 5} {
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		r := testgit.Init(t, dir)
		for i := range files {
			r.Write(fmt.Sprintf("f%d.go", i), fmt.Sprintf("package %s // %d\n", name, i))
		}
		r.Commit("init")
		svcs[name] = &Service{WS: teststore.Workspace(t, dir), Store: st, Cwd: dir, WholeStatusUnder: -1}
	}
	count := func(svc *Service) int {
		return viewCount(t, st, func(tx *store.Tx) (int, error) { return countRows(context.Background(), tx, svc.WS.Root) })
	}
	if _, err := svcs["a"].Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := count(svcs["a"]); n != 3 {
		t.Fatalf("one tree's store: %d rows, want 3", n)
	}
	for _, name := range []string{"b", "a"} {
		res, err := svcs[name].Sync(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := rowsOf(t, svcs[name])
		if n := count(svcs[name]); n != want || res.Files != want {
			t.Fatalf("%s in a shared store: countRows %d, sync says %d, want %d", name, n, res.Files, want)
		}
	}
	if a, b := count(svcs["a"]), count(svcs["b"]); a != 3 || b != 5 {
		t.Fatalf("shared store: a %d rows, b %d, want 3 and 5", a, b)
	}
}
