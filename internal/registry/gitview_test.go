package registry

import (
	"context"
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/teststore"
)

// TestIndexOfIsTheIndex: the entries indexOf reads (from HEAD's tree for
// a path git diff-index does not list, from the index for the rest) are
// the index's own, in every state a tracked file can be in: unchanged,
// changed in the work tree, staged and changed again, deleted from the
// work tree or from the index, added, added with intent to add, its mode
// or its link target changed, and in a merge conflict; and from the index
// alone when HEAD's tree cannot be read.
func TestIndexOfIsTheIndex(t *testing.T) {
	r := testgit.New(t)
	for _, p := range []string{"same.go", "changed.go", "staged.go", "deleted.go", "removed.go", "mode.sh", "conflict.go"} {
		r.Write(p, "package p // "+p+"\n")
	}
	if err := os.Symlink("same.go", r.Path("link")); err != nil {
		t.Fatal(err)
	}
	r.Commit("init")
	r.Git("checkout", "-q", "-b", "other")
	r.Write("conflict.go", "package p // theirs\n")
	r.Commit("theirs")
	r.Git("checkout", "-q", "main")
	r.Write("conflict.go", "package p // ours\n")
	r.Commit("ours")
	mergeInConflict(t, r, "other")
	head := r.Git("rev-parse", "HEAD")
	r.Write("changed.go", "package p // changed\n")
	r.Write("staged.go", "package p // staged\n")
	r.Git("add", "staged.go")
	r.Write("staged.go", "package p // staged, then changed again\n")
	r.Remove("deleted.go")
	r.Git("rm", "-q", "--cached", "removed.go")
	r.Write("added.go", "package p\n")
	r.Git("add", "added.go")
	r.Write("intent.go", "package p\n")
	r.Git("add", "-N", "intent.go")
	if err := os.Chmod(r.Path("mode.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(r.Path("link"))
	if err := os.Symlink("changed.go", r.Path("link")); err != nil {
		t.Fatal(err)
	}
	ws := teststore.Workspace(t, r.Dir)
	ctx := context.Background()
	changes, err := ws.Git.StagedChanges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	staged := map[string]byte{}
	for _, c := range changes {
		staged[c.Path] = c.Status
	}
	for _, p := range []string{"staged.go", "removed.go", "added.go", "intent.go", "conflict.go"} {
		if _, ok := staged[p]; !ok {
			t.Fatalf("git diff-index does not list %s: %v", p, staged)
		}
	}
	tracked := []string{"same.go", "changed.go", "staged.go", "deleted.go", "removed.go", "added.go", "intent.go",
		"mode.sh", "link", "conflict.go", "never.go"}
	want, err := ws.Git.Index(ctx, tracked)
	if err != nil {
		t.Fatal(err)
	}
	got, err := indexOf(ctx, ws.Git, head, tracked, staged)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, want) {
		t.Errorf("indexOf = %v\nthe index = %v", got, want)
	}
	for _, h := range []string{"", strings.Repeat("0", len(head))} { // no HEAD; a tree git cannot read
		if got, err := indexOf(ctx, ws.Git, h, tracked, staged); err != nil || !maps.Equal(got, want) {
			t.Errorf("indexOf at HEAD %q = %v, %v; want the index's", h, got, err)
		}
	}
}
