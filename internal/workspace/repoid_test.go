package workspace

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/freshctx/freshctx/internal/testgit"
)

// TestRepoIDIsKeptAndStaysRight: the id is walked for once per history;
// new commits walk only themselves; a rewritten history, another branch
// with other roots and a merge of two histories give the right id.
func TestRepoIDIsKeptAndStaysRight(t *testing.T) {
	r := testgit.New(t)
	r.Write("a", "a")
	root := r.Commit("init")
	ws, calls := countingGit(t, r.Dir)
	ctx := context.Background()
	want := func(step, id string, walks int) {
		t.Helper()
		*calls = nil
		got, err := ws.Git.RepoID(ctx)
		if err != nil || got != id {
			t.Fatalf("%s: RepoID = %q, %v; want %s", step, got, err, id)
		}
		full := 0
		for _, c := range *calls {
			if strings.HasPrefix(c, "rev-list") && !strings.Contains(c, "^") {
				full++
			}
		}
		if full != walks {
			t.Fatalf("%s: %d walks of the whole history, want %d (calls %q)", step, full, walks, *calls)
		}
	}
	want("first", root, 1)
	want("same HEAD", root, 0)
	if len(*calls) != 1 {
		t.Errorf("same HEAD: %d git calls, want 1: %q", len(*calls), *calls)
	}
	r.Write("b", "b")
	r.Commit("second")
	want("a new commit", root, 0)

	// History rewritten: an orphan branch has its own root.
	r.Git("checkout", "-q", "--orphan", "rewritten")
	r.Write("c", "c")
	newRoot := r.Commit("new history")
	want("rewritten", newRoot, 1)
	r.Git("checkout", "-q", "main")
	want("back on main", root, 0)

	// Both histories merged: the smaller root commit.
	r.Git("merge", "-q", "--allow-unrelated-histories", "-m", "join", "rewritten")
	want("merged", min(root, newRoot), 0)

	// A damaged cache file is ignored.
	gitDir := strings.TrimSpace(r.Git("rev-parse", "--absolute-git-dir"))
	if err := os.WriteFile(repoIDFile(gitDir), []byte("not a cache\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want("damaged cache", min(root, newRoot), 1)
	if ids := readRepoIDs(gitDir); !slices.ContainsFunc(ids, func(e repoIDEntry) bool { return e.id == min(root, newRoot) }) {
		t.Errorf("cache not rewritten: %v", ids)
	}
}

// TestIdentityIsOfTheCommitAsked: Identity gives the tree and id of the
// commit it was asked about (the HEAD a status saw), not of HEAD when it
// runs; for a commit seen before, with the git folders known, it runs no
// git at all, and a cache written before trees were kept still serves.
func TestIdentityIsOfTheCommitAsked(t *testing.T) {
	r := testgit.New(t)
	r.Write("a", "a")
	first := r.Commit("init")
	firstTree := strings.TrimSpace(r.Git("rev-parse", first+"^{tree}"))
	ws, calls := countingGit(t, r.Dir)
	ctx := context.Background()
	if id, err := ws.Git.RepoID(ctx); err != nil || id != first {
		t.Fatalf("RepoID = %q, %v", id, err)
	}
	*calls = nil
	tree, id, err := ws.Git.Identity(ctx, first)
	if err != nil || tree != firstTree || id != first {
		t.Fatalf("Identity(first) = %q, %q, %v; want %s, %s", tree, id, err, firstTree, first)
	}
	if slices.Contains(*calls, "rev-parse --git-dir --git-common-dir") {
		t.Fatalf("the git folders were asked again after RepoID had them: %q", *calls)
	}
	r.Write("b", "b")
	second := r.Commit("second") // HEAD moved on: the first commit is still described
	*calls = nil
	tree, id, err = ws.Git.Identity(ctx, first)
	if err != nil || tree != firstTree || id != first {
		t.Fatalf("Identity(first) after a commit = %q, %q, %v; want %s, %s", tree, id, err, firstTree, first)
	}
	if len(*calls) != 0 {
		t.Fatalf("a commit seen before: git calls %q, want none", *calls)
	}
	tree, id, err = ws.Git.Identity(ctx, second)
	if want := strings.TrimSpace(r.Git("rev-parse", "HEAD^{tree}")); err != nil || tree != want || id != first {
		t.Fatalf("Identity(second) = %q, %q, %v; want %s, %s", tree, id, err, want, first)
	}
	// A line of the old form (no tree): the tree is read, the id kept.
	gitDir := strings.TrimSpace(r.Git("rev-parse", "--absolute-git-dir"))
	if err := os.WriteFile(repoIDFile(gitDir), []byte(first+" "+first+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	*calls = nil
	if tree, id, err = ws.Git.Identity(ctx, first); err != nil || tree != firstTree || id != first {
		t.Fatalf("Identity(first) from an old cache line = %q, %q, %v", tree, id, err)
	}
	if len(*calls) != 1 || !strings.HasPrefix((*calls)[0], "rev-parse") {
		t.Fatalf("old cache line: git calls %q, want one rev-parse of the tree", *calls)
	}
	if got := readRepoIDs(gitDir); len(got) != 1 || got[0] != (repoIDEntry{first, first, firstTree}) {
		t.Fatalf("cache after an old line was completed: %v", got)
	}
	if _, _, err := ws.Git.Identity(ctx, "HEAD"); err == nil {
		t.Fatal("Identity accepted a name that is not a commit hash")
	}
}

// countingGit opens the workspace at dir with git calls noted in *calls.
func countingGit(t *testing.T, dir string) (*Workspace, *[]string) {
	t.Helper()
	ws, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	calls := new([]string)
	var mu sync.Mutex // git may be run from two goroutines at once
	ws.Git.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		mu.Lock()
		*calls = append(*calls, strings.Join(args, " "))
		mu.Unlock()
		return ExecGit(ctx, dir, args...)
	}
	return ws, calls
}

func TestRootsSinceReadsRootsAndAncestry(t *testing.T) {
	const k, a, b, r = "k111", "a222", "b333", "r444"
	for _, tc := range []struct {
		name, out string
		roots     []string
		ancestor  bool
	}{
		{"ahead of known", a + " " + b + "\n" + b + " " + k + "\n-" + k + " p000\n", nil, true},
		{"known is not an ancestor", r + "\n", []string{r}, false},
		{"another boundary only", a + " p999\n-p999 p000\n", nil, false},
		{"merged with another history", a + " " + r + " " + b + "\n" + r + "\n" + b + " " + k + "\n-" + k + " p000\n", []string{r}, true},
		{"nothing since", "", nil, false},
	} {
		roots, ancestor := rootsSince(tc.out, k)
		if !slices.Equal(roots, tc.roots) || ancestor != tc.ancestor {
			t.Errorf("%s: roots %v, ancestor %v; want %v, %v", tc.name, roots, ancestor, tc.roots, tc.ancestor)
		}
	}
}

// TestKilledWalkKeepsNoID: a git killed because its context ended exits
// with a failure status, as git saying "no commits" does; Identity must
// not take it for that and keep an empty id for a commit that has one
// (the warm-up's walk is killed so when the run it served ends first).
func TestKilledWalkKeepsNoID(t *testing.T) {
	r, _, ws, _ := identityKnown(t)
	r.Write("b", "b")
	second := r.Commit("second")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	real := ws.Git.Run
	ws.Git.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		if args[0] != "rev-list" && args[0] != "merge-base" {
			return real(context.Background(), dir, args...)
		}
		cancel() // the run ends; its git is killed
		return exec.Command("sh", "-c", "kill -9 $$").Output()
	}
	if tree, id, err := ws.Git.Identity(ctx, second); err == nil {
		t.Fatalf("Identity with its walk killed = %q, %q, nil; want an error", tree, id)
	}
	gitDir := strings.TrimSpace(r.Git("rev-parse", "--absolute-git-dir"))
	if e, ok := readRepoIDs(gitDir).lookup(second); ok {
		t.Fatalf("a killed walk kept %+v", e)
	}
	if ok, err := ws.Git.IsAncestor(ctx, second, second); ok || err == nil {
		t.Fatalf("IsAncestor with its git killed = %v, %v; want an error", ok, err)
	}
}
