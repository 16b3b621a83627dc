package workspace

import (
	"context"
	"os"
	"slices"
	"strings"
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
	ws, err := Discover(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	ws.Git.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		calls = append(calls, strings.Join(args, " "))
		return ExecGit(ctx, dir, args...)
	}
	ctx := context.Background()
	want := func(step, id string, walks int) {
		t.Helper()
		calls = nil
		got, err := ws.Git.RepoID(ctx)
		if err != nil || got != id {
			t.Fatalf("%s: RepoID = %q, %v; want %s", step, got, err, id)
		}
		full := 0
		for _, c := range calls {
			if strings.HasPrefix(c, "rev-list") && !strings.Contains(c, "^") {
				full++
			}
		}
		if full != walks {
			t.Fatalf("%s: %d walks of the whole history, want %d (calls %q)", step, full, walks, calls)
		}
	}
	want("first", root, 1)
	want("same HEAD", root, 0)
	if len(calls) != 1 {
		t.Errorf("same HEAD: %d git calls, want 1: %q", len(calls), calls)
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
