package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testgit"
)

// warmed waits for the Identity WarmIdentity started, if it started one,
// and says whether it did.
func warmed(g *Git) bool {
	g.warmMu.Lock()
	w := g.warm
	g.warmMu.Unlock()
	if w == nil {
		return false
	}
	<-w.done
	return true
}

// identityKnown makes a repository of one commit whose identity the cache
// holds, with git calls noted in calls.
func identityKnown(t *testing.T) (r *testgit.Repo, first string, ws *Workspace, calls *[]string) {
	t.Helper()
	r = testgit.New(t)
	r.Write("a", "a")
	first = r.Commit("init")
	ws, calls = countingGit(t, r.Dir)
	if _, _, err := ws.Git.Identity(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	return r, first, ws, calls
}

// TestWarmIdentityServesTheNewCommit: after a commit, the warm-up finds the
// commit's tree and id beside the status, and Identity asked for the HEAD
// the status reports then runs no git; a commit the cache holds is not
// warmed at all.
func TestWarmIdentityServesTheNewCommit(t *testing.T) {
	r, first, ws, calls := identityKnown(t)
	ctx := context.Background()
	ws.Git.WarmIdentity(ctx)
	if warmed(ws.Git) {
		t.Fatal("a commit the cache holds was warmed")
	}
	r.Write("b", "b")
	second := r.Commit("second")
	ws.Git.WarmIdentity(ctx)
	if !warmed(ws.Git) {
		t.Fatal("a new commit was not warmed")
	}
	*calls = nil
	tree, id, err := ws.Git.Identity(ctx, second)
	if want := strings.TrimSpace(r.Git("rev-parse", "HEAD^{tree}")); err != nil || tree != want || id != first {
		t.Fatalf("Identity(second) = %q, %q, %v; want %s, %s", tree, id, err, want, first)
	}
	if len(*calls) != 0 {
		t.Fatalf("Identity after the warm-up ran git: %q", *calls)
	}
}

// TestWarmIdentityGuessDecidesNothing: a guess that is not the HEAD the
// status reports (HEAD moved, the ref names no commit) leaves Identity to
// find the right answer itself, and never waits for the wrong commit.
func TestWarmIdentityGuessDecidesNothing(t *testing.T) {
	r, first, ws, calls := identityKnown(t)
	ctx := context.Background()
	gitDir := strings.TrimSpace(r.Git("rev-parse", "--absolute-git-dir"))
	// The branch's ref names a commit that does not exist.
	bogus := strings.Repeat("ab", 20)
	ref := filepath.Join(gitDir, "refs", "heads", "main")
	real, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ref, []byte(bogus+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws.Git.WarmIdentity(ctx)
	if !warmed(ws.Git) {
		t.Fatal("the ref's commit was not guessed")
	}
	if err := os.WriteFile(ref, real, 0o644); err != nil {
		t.Fatal(err)
	}
	if e, ok := readRepoIDs(gitDir).lookup(bogus); ok {
		t.Fatalf("a commit that does not exist was kept: %+v", e)
	}
	// HEAD moves on after the guess: the commit the status saw is described.
	r.Write("b", "b")
	second := r.Commit("second")
	ws.Git.WarmIdentity(ctx) // guesses second
	warmed(ws.Git)
	r.Write("c", "c")
	third := r.Commit("third")
	*calls = nil
	tree, id, err := ws.Git.Identity(ctx, third)
	if want := strings.TrimSpace(r.Git("rev-parse", third+"^{tree}")); err != nil || tree != want || id != first {
		t.Fatalf("Identity(third) = %q, %q, %v; want %s, %s", tree, id, err, want, first)
	}
	if len(*calls) == 0 {
		t.Fatal("Identity(third) ran no git: it was answered from the guess of another commit")
	}
	tree, id, err = ws.Git.Identity(ctx, second)
	if want := strings.TrimSpace(r.Git("rev-parse", second+"^{tree}")); err != nil || tree != want || id != first {
		t.Fatalf("Identity(second) = %q, %q, %v; want %s, %s", tree, id, err, want, first)
	}
}

func TestHeadFromFiles(t *testing.T) {
	r := testgit.New(t)
	r.Write("a", "a")
	first := r.Commit("init")
	dirsOf := func(dir string) *gitDirs {
		t.Helper()
		d, ok := readGitDirs(dir)
		if !ok {
			t.Fatalf("readGitDirs(%s) failed", dir)
		}
		return d
	}
	want := func(step, dir, head string, ok bool) {
		t.Helper()
		if got, gotOK := headFromFiles(dirsOf(dir)); gotOK != ok || ok && got != head {
			t.Fatalf("%s: headFromFiles = %q, %v; want %q, %v", step, got, gotOK, head, ok)
		}
	}
	want("a branch's loose ref", r.Dir, first, true)
	r.Git("checkout", "-q", "--detach")
	want("a detached HEAD", r.Dir, first, true)
	r.Git("checkout", "-q", "main")
	r.Git("pack-refs", "--all")
	want("a packed ref", r.Dir, "", false)
	r.Write("b", "b")
	second := r.Commit("second") // written loose again
	want("loose after packing", r.Dir, second, true)
	linked := filepath.Join(t.TempDir(), "linked")
	r.Git("worktree", "add", "-q", "-b", "side", linked)
	want("a linked work tree's branch", linked, second, true)
	r.Git("symbolic-ref", "HEAD", "refs/remotes/origin/main")
	want("a ref outside refs/heads", r.Dir, "", false)
}

// TestIdentityWaitsForTheWarmUpOfItsCommit: asked while the warm-up of the
// same commit is still running, Identity waits for it and reads what it
// kept instead of running the same gits beside it.
func TestIdentityWaitsForTheWarmUpOfItsCommit(t *testing.T) {
	r, first, ws, calls := identityKnown(t)
	ctx := context.Background()
	r.Write("b", "b")
	second := r.Commit("second")
	counted := ws.Git.Run
	ws.Git.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		time.Sleep(50 * time.Millisecond) // the warm-up is still running when Identity is asked
		return counted(ctx, dir, args...)
	}
	*calls = nil
	ws.Git.WarmIdentity(ctx)
	tree, id, err := ws.Git.Identity(ctx, second)
	if want := strings.TrimSpace(r.Git("rev-parse", "HEAD^{tree}")); err != nil || tree != want || id != first {
		t.Fatalf("Identity(second) = %q, %q, %v; want %s, %s", tree, id, err, want, first)
	}
	trees := 0
	for _, c := range *calls {
		if strings.HasPrefix(c, "rev-parse --verify") {
			trees++
		}
	}
	if trees != 1 {
		t.Fatalf("the tree was read %d times, want once: %q", trees, *calls)
	}
}
