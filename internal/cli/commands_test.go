package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/artifact"
	"github.com/freshctx/freshctx/internal/integrate"
	"github.com/freshctx/freshctx/internal/mcpserver"
	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/registry"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testgit"
)

// testApp is the app of a command run in dir, its store in the test's
// temporary folder.
func testApp(t *testing.T, dir string) *app {
	t.Helper()
	a := &app{io: IO{Cwd: dir, Env: os.Environ()}, storeArg: filepath.Join(t.TempDir(), "freshctx.db")}
	t.Cleanup(func() {
		if a.st != nil {
			a.st.Close()
		}
	})
	return a
}

// repoApp is the app of a command run in a repository holding a.go.
func repoApp(t *testing.T) (*testgit.Repo, *app) {
	r := testgit.New(t)
	r.Write("a.go", "package a\n")
	r.Commit("init")
	return r, testApp(t, r.Dir)
}

// TestRunInit: init plans the agent's files in the workspace, writes them
// unless --dry-run, and refuses what it cannot do before writing anything.
func TestRunInit(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // init must write nothing there; if it did, not in the user's
	r := testgit.New(t)
	a := testApp(t, r.Dir)
	res, err := a.runInit(initOptions{agent: "cursor", dryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 || res.Changes[0].Action != "created" || !res.DryRun {
		t.Fatalf("dry run: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".cursor", "mcp.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a dry run wrote .cursor/mcp.json (%v)", err)
	}
	if _, err := a.runInit(initOptions{agent: "cursor"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".cursor", "mcp.json")); err != nil {
		t.Fatalf("init did not write .cursor/mcp.json: %v", err)
	}
	for _, o := range []initOptions{{agent: "vim"}, {agent: "codex", project: true, user: true}} {
		var ue usageError
		if _, err := a.runInit(o); !errors.As(err, &ue) {
			t.Errorf("runInit(%+v) = %v, want a usage error", o, err)
		}
	}
}

// TestRunForget: forget takes ids or an age, never both or neither, and
// deletes the records named.
func TestRunForget(t *testing.T) {
	r := testgit.New(t)
	a := testApp(t, r.Dir)
	ctx := context.Background()
	svc, err := a.records(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := svc.Run(ctx, records.RunRequest{Argv: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []forgetOptions{{}, {ids: []string{"1"}, olderThan: "1d"}} {
		var ue usageError
		if _, err := a.runForget(ctx, o); !errors.As(err, &ue) {
			t.Errorf("runForget(%+v) = %v, want a usage error", o, err)
		}
	}
	out, err := a.runForget(ctx, forgetOptions{ids: []string{"1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.IDs) != 1 || out.IDs[0] != rec.ID {
		t.Fatalf("forgot %v, want [%d]", out.IDs, rec.ID)
	}
}

// TestRunArtifactPutAndGet: what put stored, get gives back as a hit
// while its input holds, stale once it changed, cold for a key never put.
func TestRunArtifactPutAndGet(t *testing.T) {
	r, a := repoApp(t)
	ctx := context.Background()
	summary := filepath.Join(t.TempDir(), "summary.txt")
	if err := os.WriteFile(summary, []byte("Package a, empty."), 0o644); err != nil {
		t.Fatal(err)
	}
	var o artifactPutOptions
	o.req.Type, o.req.Key, o.contentFile = "file_summary", "a.go", summary
	put, err := a.runArtifactPut(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if put.Bytes != int64(len("Package a, empty.")) || len(put.Deps) != 1 {
		t.Fatalf("put: %+v", put)
	}
	get := func(key string) artifactGot {
		t.Helper()
		got, err := a.runArtifactGet(ctx, artifact.GetRequest{Type: "file_summary", Key: key}, "default")
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := get("a.go"); got.Outcome != artifact.Hit || got.Content != "Package a, empty." {
		t.Fatalf("get: %s %q", got.Outcome, got.Content)
	}
	r.Write("a.go", "package a\n\nvar X = 1\n")
	if got := get("a.go"); got.Outcome != artifact.Stale {
		t.Fatalf("get after an edit: %s", got.Outcome)
	}
	if _, err := a.runArtifactGet(ctx, artifact.GetRequest{Type: "file_summary", Key: "a.go"}, "loose"); err == nil {
		t.Fatal("an unknown mode was taken")
	}
}

// TestRunSummarize: a summary is stored with its author, --by's or the
// default (an agent, with no terminal); a file that is not there stores
// nothing.
func TestRunSummarize(t *testing.T) {
	_, a := repoApp(t)
	ctx := context.Background()
	for _, tt := range []struct{ by, want string }{{"", registry.ByAgent}, {"person", registry.ByPerson}} {
		res, err := a.runSummarize(ctx, summarizeOptions{paths: []string{"a.go"}, text: "Package a.", by: tt.by})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Updated) != 1 {
			t.Fatalf("updated %v", res.Updated)
		}
		svc, _ := a.registryService(ctx)
		list, err := svc.List(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Files) != 1 || list.Files[0].SummaryBy != tt.want {
			t.Fatalf("--by %q: the file's summary is by %q, want %q", tt.by, list.Files[0].SummaryBy, tt.want)
		}
	}
	if _, err := a.runSummarize(ctx, summarizeOptions{paths: []string{"nothere.go"}, text: "x"}); err == nil {
		t.Fatal("a summary of a file that is not there was stored")
	}
	var ue usageError
	if _, err := a.runSummarize(ctx, summarizeOptions{paths: []string{"a.go"}, text: "x", by: "robot"}); !errors.As(err, &ue) {
		t.Fatalf("--by robot: %v, want a usage error", err)
	}
}

// TestRunRead: an answer the caller never said it delivered is not what
// the model holds (the next read serves the content again); once
// delivered, the same read is answered unchanged; a store that cannot be
// used serves the file as a plain read and says why.
func TestRunRead(t *testing.T) {
	r, a := repoApp(t)
	r.Write("b.go", "package a\n\n"+strings.Repeat("// A line the model reads once, and need not read again.\n", 40))
	ctx := context.Background()
	req := readcache.ReadRequest{Target: "b.go", Session: "s"}
	for i, want := range []string{"full", "full", "unchanged"} {
		ans, err := a.runRead(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if ans.res.Mode != want || ans.plainWhy != nil {
			t.Fatalf("read %d: mode %s (%s; plain: %v), want %s", i+1, ans.res.Mode, ans.res.Reason, ans.plainWhy, want)
		}
		if i > 0 {
			if err := ans.delivered(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	broken := testApp(t, r.Dir)
	broken.storeArg = t.TempDir() // a folder: no store can be opened there
	ans, err := broken.runRead(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if ans.plainWhy == nil || ans.res.TotalLines != 42 || !strings.Contains(ans.res.Text, "package a") {
		t.Fatalf("a read with no usable store: %d lines, why %v", ans.res.TotalLines, ans.plainWhy)
	}
}

// TestRunHook: a hook from a folder named relative to nothing, or from a
// folder that is no project, is not answered and makes no store; a Bash
// line the run commands route is rewritten through freshctx run.
func TestRunHook(t *testing.T) {
	ctx := context.Background()
	hook := func(a *app, cwd, command string) (*integrate.HookInput, string, error) {
		in, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "c1", "cwd": cwd, "permission_mode": "bypassPermissions",
			"tool_name": "Bash", "tool_input": map[string]string{"command": command}})
		a.io.In = bytes.NewReader(in)
		return a.runHook(ctx, "claude-code")
	}
	r, a := repoApp(t)
	for _, cwd := range []string{"relative/dir", t.TempDir()} {
		a := &app{io: IO{Cwd: r.Dir, Env: os.Environ()}}
		if h, out, err := hook(a, cwd, "go test ./..."); h != nil || out != "" || err != nil {
			t.Errorf("a hook from %s: %v %q %v", cwd, h, out, err)
		}
		if _, err := os.Stat(store.DefaultPath(cwd)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a hook from %s made a store there (%v)", cwd, err)
		}
	}
	h, out, err := hook(a, r.Dir, "go test ./...")
	if err != nil || h == nil || !strings.Contains(out, `run -- go test ./...`) {
		t.Fatalf("a routed line: %v %q %v", h, out, err)
	}
}

// TestMCPOptions: the server looks for its project in the root given,
// else in the folders Cursor names, then the working directory.
func TestMCPOptions(t *testing.T) {
	t.Setenv("FRESHCTX_ROOT", "")
	t.Setenv("WORKSPACE_FOLDER_PATHS", " /w/one, ,/w/two")
	a := &app{io: IO{Cwd: "/home/u"}}
	o := a.mcpOptions("read,recall", true)
	if o.Root != "" || !slices.Equal(o.Fallback, []string{"/w/one", "/w/two", "/home/u"}) ||
		!slices.Equal(o.Tools, []string{"read", "recall"}) || !o.Structured {
		t.Fatalf("%+v", o)
	}
	a.rootFlag = "/w/given"
	if o := a.mcpOptions("", false); o.Root != "/w/given" || o.Tools != nil {
		t.Fatalf("with --root: %+v", o)
	}
}

// TestMCPHelpListsTheTools: the tools, listed only when the help is
// shown, are all there, once, for --help and for `help mcp` alike.
func TestMCPHelpListsTheTools(t *testing.T) {
	want := "Tools: " + strings.Join(mcpserver.Names(), ", ") + "\n"
	for _, args := range [][]string{{"mcp", "--help"}, {"help", "mcp"}, {"mcp", "-h"}} {
		var out, errOut bytes.Buffer
		if code := Main(context.Background(), args, IO{In: strings.NewReader(""), Out: &out, Err: &errOut, Cwd: t.TempDir()}); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		if n := strings.Count(out.String(), want); n != 1 {
			t.Errorf("%v: the tool list appears %d times, want once:\n%s", args, n, out.String())
		}
	}
}

// TestRunTeamInit: a URL holding a password is refused before anything is
// opened or stored.
func TestRunTeamInit(t *testing.T) {
	_, a := repoApp(t)
	var ue usageError
	if _, err := a.runTeamInit(context.Background(), "postgres://ana:pw@127.0.0.1:1/team"); !errors.As(err, &ue) {
		t.Fatalf("a URL with a password: %v, want a usage error", err)
	}
	if a.st != nil {
		t.Fatal("the store was opened for a URL that was refused")
	}
}
