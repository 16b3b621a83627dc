package artifact

import (
	"os"
	"slices"
	"testing"
	"time"
)

// soundFixture takes every fingerprint as settled (a 1 ns racy window), so
// the fingerprint tier, not only hashing, must see each change.
func soundFixture(t *testing.T) *fixture {
	f := newFixture(t)
	f.svc.RacyWindow = time.Nanosecond
	f.svc.Now = time.Now
	return f
}

func TestSoundSymlinkKeyTargetEdited(t *testing.T) {
	f := soundFixture(t)
	f.r.Write("AGENTS.md", "# agents\n")
	if err := os.Symlink("AGENTS.md", f.r.Path("CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	f.r.Commit("linked instructions")
	f.put(PutRequest{Type: "file_summary", Key: "CLAUDE.md"})
	if got := f.get(GetRequest{Type: "file_summary", Key: "CLAUDE.md"}); got.Outcome != Hit {
		t.Fatalf("outcome = %s before the edit (%+v)", got.Outcome, got.Reasons)
	}
	f.r.Write("AGENTS.md", "# AGENTS\n")
	if got := f.get(GetRequest{Type: "file_summary", Key: "CLAUDE.md"}); got.Outcome != Stale {
		t.Fatalf("outcome = %s after the link's target was edited, want stale", got.Outcome)
	}
}

func TestSoundDepWithAssumeUnchanged(t *testing.T) {
	f := soundFixture(t)
	f.put(PutRequest{Type: "tool_result", Key: "vet", Deps: []string{"mod_b/b.go"}})
	f.r.Git("update-index", "--assume-unchanged", "mod_b/b.go")
	f.r.Write("mod_b/b.go", "package B\n")
	if got := f.get(GetRequest{Type: "tool_result", Key: "vet"}); got.Outcome != Stale || !slices.Equal(dims(got), []string{DimFile}) {
		t.Fatalf("outcome = %s %v, want stale by file", got.Outcome, dims(got))
	}
}

func TestSoundRepoMapUnstagedDelete(t *testing.T) {
	f := soundFixture(t)
	f.put(PutRequest{Type: "repo_map", Key: "root"})
	if err := os.Remove(f.r.Path("mod_b/b.go")); err != nil { // not staged: the index still lists it
		t.Fatal(err)
	}
	got := f.get(GetRequest{Type: "repo_map", Key: "root"})
	if got.Outcome != Stale || !slices.Equal(dims(got), []string{DimPathSet}) {
		t.Fatalf("outcome = %s %v after an unstaged delete, want stale by path_set", got.Outcome, dims(got))
	}
}
