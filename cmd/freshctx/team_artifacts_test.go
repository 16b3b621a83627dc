package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/team"
	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testpg"
	"github.com/freshctx/freshctx/internal/testrace"
)

// get is artifact get's exit status and output.
func (c *teamClone) get(typ, key string) (int, string) {
	c.t.Helper()
	out, err := c.freshctx("artifact", "get", typ, key)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out
	case errors.As(err, &exit):
		return exit.ExitCode(), out
	}
	c.t.Fatalf("artifact get %s %s: %v\n%s", typ, key, err, out)
	return 0, ""
}

func (c *teamClone) put(content string, args ...string) {
	c.t.Helper()
	cmd := exec.Command(c.bin, append([]string{"artifact", "put"}, args...)...)
	cmd.Dir, cmd.Env, cmd.Stdin = c.dir, c.env, strings.NewReader(content)
	if out, err := cmd.CombinedOutput(); err != nil {
		c.t.Fatalf("artifact put %v: %v\n%s", args, err, out)
	}
}

// TestTeamArtifactsHitOnlyForMyTree: a repo_map and a tool_result put in
// clone A are hits in clone B, whose tree and bytes are A's; the repo map
// is stale in a clone with another tree, the tool result in a clone
// whose input differs; an entry whose inputs name other bytes, or whose
// content is not what its hashes say, is never served as a hit.
func TestTeamArtifactsHitOnlyForMyTree(t *testing.T) {
	testrace.Skip(t, "drives separate processes")
	pg := testpg.Own(t)
	url := pg.Database(t)
	bin := testbin.Build(t)
	clone := newTeamRepo(t, bin)
	a, b := clone("a", "ana@example.com"), clone("b", "bo@example.com")
	otherTree, otherBytes := clone("c", "cy@example.com"), clone("d", "di@example.com")
	a.must("team", "init", url)
	for _, x := range []*teamClone{b, otherTree, otherBytes} {
		x.must("config", "team.url", url)
	}
	os.WriteFile(filepath.Join(otherTree.dir, "extra.txt"), []byte("one more file\n"), 0o644)
	exec.Command("git", "-C", otherTree.dir, "add", "extra.txt").Run()
	if out, err := exec.Command("git", "-C", otherTree.dir, "-c", "user.name=c", "commit", "-qm", "extra").CombinedOutput(); err != nil {
		t.Fatalf("commit in the clone with another tree: %v %s", err, out)
	}
	os.WriteFile(filepath.Join(otherBytes.dir, "notes.txt"), []byte("other bytes\n"), 0o644)

	a.put("notes.txt: twenty numbered lines\n", "repo_map", "root")
	a.put("lint: notes.txt is clean\n", "tool_result", "lint", "--dep", "notes.txt")
	if out := a.must("team", "publish"); !strings.Contains(out, "0 waiting") {
		t.Fatalf("publish: %s", out)
	}

	if code, out := b.get("repo_map", "root"); code != 0 || !strings.Contains(out, "twenty numbered lines") ||
		!strings.Contains(out, "from the team store: put by ana@example.com") {
		t.Fatalf("repo_map in clone B (same tree): exit %d\n%s", code, out)
	}
	if code, out := b.get("repo_map", "root"); code != 0 || strings.Contains(out, "team store") {
		t.Fatalf("repo_map in clone B again (now local): exit %d\n%s", code, out)
	}
	if code, out := b.get("tool_result", "lint"); code != 0 || !strings.Contains(out, "notes.txt is clean") {
		t.Fatalf("tool_result in clone B: exit %d\n%s", code, out)
	}
	os.WriteFile(filepath.Join(b.dir, "notes.txt"), []byte("edited in B\n"), 0o644)
	if code, out := b.get("tool_result", "lint"); code != exitStaleCode {
		t.Fatalf("tool_result in clone B after B edits its input: exit %d, want stale\n%s", code, out)
	}

	if code, out := otherTree.get("repo_map", "root"); code != exitStaleCode || !strings.Contains(out, "tree") {
		t.Fatalf("repo_map in a clone with another tree: exit %d, want stale\n%s", code, out)
	}
	if code, out := otherBytes.get("tool_result", "lint"); code != exitStaleCode || !strings.Contains(out, "notes.txt") {
		t.Fatalf("tool_result in a clone whose notes.txt differs: exit %d, want stale\n%s", code, out)
	}
	// A repo map depends on the set of files (and its --deps), which an
	// edit leaves as it is.
	if code, out := otherBytes.get("repo_map", "root"); code != 0 {
		t.Fatalf("repo_map in a clone with the same tree and set of files: exit %d\n%s", code, out)
	}

	// Poison: newer entries for this tree whose inputs name other bytes, or
	// whose content is not what its hashes say.
	ts, err := team.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	found, err := ts.FindArtifacts(context.Background(), mustRepoID(t, a.dir), "tool_result", "lint")
	if err != nil || len(found) != 1 {
		t.Fatalf("the team's tool_result: %v %+v", err, found)
	}
	good := found[0]
	if ok, err := ts.Contents(context.Background(), &good); !ok || err != nil {
		t.Fatalf("the published tool_result is not intact: %v", err)
	}
	lie := good
	lie.Slices = append([]team.ArtifactSlice(nil), good.Slices...)
	lie.Slices[0].Inputs = []team.File{{Path: "notes.txt", SHA256: strings.Repeat("0", 64), Existed: true}}
	lie.Slices[0].Content = "lint: POISON (other bytes)\n"
	lie.CreatedAt = good.CreatedAt.Add(time.Minute)
	lie.Seal()
	tampered := good
	tampered.Slices = append([]team.ArtifactSlice(nil), good.Slices...)
	tampered.CreatedAt = good.CreatedAt.Add(2 * time.Minute)
	tampered.Seal()
	tampered.Slices[0].Content = "lint: POISON (not what its hash says)\n"
	if _, err := ts.PublishArtifacts(context.Background(), []team.Artifact{lie, tampered}); err != nil {
		t.Fatal(err)
	}
	fresh := clone("e", "eve@example.com")
	fresh.must("config", "team.url", url)
	if code, out := fresh.get("tool_result", "lint"); code != 0 || strings.Contains(out, "POISON") || !strings.Contains(out, "notes.txt is clean") {
		t.Fatalf("tool_result in a new clone beside poisoned entries: exit %d\n%s", code, out)
	}
	if code, out := otherBytes.get("tool_result", "lint"); code == 0 || strings.Contains(out, "not what its hash says") {
		t.Fatalf("tool_result where notes.txt differs, beside poisoned entries: exit %d\n%s", code, out)
	}
}

const (
	exitStaleCode = 3
	exitColdCode  = 4
)

func mustRepoID(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "rev-list", "--max-parents=0", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(strings.Fields(string(out))[0])
}
