package doctor

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/artifact"
	"github.com/freshctx/freshctx/internal/sha"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/teststore"
	"github.com/freshctx/freshctx/internal/workspace"
)

func check(t *testing.T, rep *Report, name string) Check {
	t.Helper()
	for _, c := range rep.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no %s check in %+v", name, rep.Checks)
	return Check{}
}

// TestLostArtifactContentIsDroppedSoItIsRebuilt: an artifact whose blob
// file is gone is reported, and --fix drops it: the next get is cold, not
// an error.
func TestLostArtifactContentIsDroppedSoItIsRebuilt(t *testing.T) {
	ctx := context.Background()
	r := testgit.New(t)
	r.Write("a.go", "package a\n")
	r.Commit("init")
	ws := teststore.Workspace(t, r.Dir)
	st := teststore.Open(t, "", store.Options{})
	arts := &artifact.Service{WS: ws, Store: st, Cwd: r.Dir}
	content := strings.Repeat("a large repo map line\n", 2000) // stored as a blob
	if _, err := arts.Put(ctx, artifact.PutRequest{Type: "repo_map", Key: "root", Deps: []string{"a.go"}, Content: strings.NewReader(content)}); err != nil {
		t.Fatal(err)
	}
	d := sha.Bytes([]byte(content)).String()
	if err := os.Remove(st.BlobDir() + "/" + d[:2] + "/" + d[2:] + ".zst"); err != nil {
		t.Fatal(err)
	}

	rep := Run(ctx, Options{Path: st.Path(), Store: st, WS: ws})
	if c := check(t, rep, "raw output"); c.Status != Warn || !strings.Contains(c.Detail, "1 cached item lost content") {
		t.Fatalf("raw output check = %+v", c)
	}
	if !rep.OK {
		t.Fatal("a lost cache item is a warning, not a failure")
	}
	rep = Run(ctx, Options{Path: st.Path(), Store: st, WS: ws, Fix: true})
	if c := check(t, rep, "raw output"); c.Status != OK || !strings.Contains(c.Fixed, "dropped 1 cache row") {
		t.Fatalf("fixed raw output check = %+v", c)
	}
	got, err := arts.Get(ctx, artifact.GetRequest{Type: "repo_map", Key: "root"})
	if err != nil || got.Outcome != artifact.Cold {
		t.Fatalf("get after fix = %+v, %v; want cold", got, err)
	}
	rep = Run(ctx, Options{Path: st.Path(), Store: st, WS: ws})
	for _, c := range rep.Checks {
		// The status check's verdict is the machine's speed (a loaded one
		// warns); TestStatusCheck holds it to a threshold it sets.
		if c.Status != OK && c.Name != "git status" {
			t.Errorf("after fix: %+v", c)
		}
	}
}

// The status check times the status each run waits for: fine when fast
// or answered from git's untracked cache, a warning pointing at the cache
// when slow without it.
func TestStatusCheck(t *testing.T) {
	ctx := context.Background()
	r := testgit.New(t)
	r.Write("a.go", "package a\n")
	r.Commit("init")
	ws := teststore.Workspace(t, r.Dir)
	defer func(d time.Duration) { slowStatus = d }(slowStatus)
	slowStatus = time.Hour // fast, however loaded the machine
	if c := statusCheck(ctx, ws); c.Status != OK || !strings.Contains(c.Detail, "each run waits for one status") {
		t.Fatalf("a fast status: %+v", c)
	}
	slowStatus = 0
	if c := statusCheck(ctx, ws); c.Status != Warn || !strings.Contains(c.Detail, "core.untrackedCache true") {
		t.Fatalf("a slow status without the cache: %+v", c)
	}
	r.Git("config", "core.untrackedCache", "true")
	r.Git("status")
	if c := statusCheck(ctx, ws); c.Status != OK || !strings.Contains(c.Detail, "untracked cache") {
		t.Fatalf("a slow status answered from the cache: %+v", c)
	}
	rep := Run(ctx, Options{Path: "", OpenErr: store.ErrNoStore, WS: ws})
	check(t, rep, "git status")
}

func TestStatusVerdict(t *testing.T) {
	slow := slowStatus + time.Millisecond
	for _, c := range []struct {
		name string
		cost workspace.StatusCost
		want Status
		says string
	}{
		{"fast", workspace.StatusCost{Took: time.Millisecond, Traced: true}, OK, "1ms here"},
		{"slow, from the cache", workspace.StatusCost{Took: slow, Traced: true, UntrackedCache: true}, OK, "answered from git's untracked cache"},
		{"slow, no cache", workspace.StatusCost{Took: slow, Traced: true}, Warn, "git config core.untrackedCache true"},
		{"slow, git said nothing of a cache", workspace.StatusCost{Took: slow}, OK, "each run waits for one status"},
	} {
		got := statusVerdict(c.cost)
		if got.Status != c.want || !strings.Contains(got.Detail, c.says) {
			t.Errorf("%s: %+v, want %s saying %q", c.name, got, c.want, c.says)
		}
	}
}
