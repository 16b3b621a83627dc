package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/freshctx/freshctx/internal/agenttest"
	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testrace"
)

var update = flag.Bool("u", false, "update testscript golden files")

func TestMain(m *testing.M) {
	// One build of freshctx serves every test that runs it as a process.
	testscript.Main(testbinRun{m}, map[string]func(){"freshctx": main})
}

// raceScripts are the scripts the race run keeps: those whose commands
// run goroutines side by side (a run's capture, concurrent runs, the Bash
// hook routing a run, a model's summaries sent at once). The others drive
// commands that work on one goroutine, whose packages the race run tests
// on their own.
var raceScripts = []string{"capture", "hook-bash", "run-binary", "run-concurrent", "run-exit-status",
	"run-hostile-output", "run-large", "run-not-found", "summarize-auto"}

func TestScripts(t *testing.T) {
	dir, files := "testdata/script", []string(nil)
	if testrace.Enabled {
		for _, name := range raceScripts {
			files = append(files, filepath.Join(dir, name+".txtar"))
		}
		dir = ""
	}
	testscript.Run(t, testscript.Params{
		Dir:                 dir,
		Files:               files,
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("GIT_AUTHOR_NAME", "t")
			env.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
			env.Setenv("GIT_COMMITTER_NAME", "t")
			env.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			// Scripts that run go share the build cache: a cold one costs
			// a compile of the standard library.
			env.Setenv("GOCACHE", goCache())
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"maxrss":    cmdMaxRSS,
			"chatmodel": cmdChatModel,
			"romount":   cmdROMount,
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "short":
				return testing.Short(), nil
			case "race": // the binary the scripts run is this one: under -race, so is it
				return testrace.Enabled, nil
			case "romount":
				return canMountReadOnly(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

var goCache = sync.OnceValue(func() string {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})

// cmdMaxRSS runs a command and fails unless its peak resident memory stayed
// under the limit: maxrss LIMIT_MB CMD [ARG...]. The command's exit status is
// ignored; its stdout and stderr are discarded.
func cmdMaxRSS(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: maxrss LIMIT_MB CMD [ARG...]")
	}
	limit, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("maxrss: bad limit %q", args[0])
	}
	path, err := lookPath(ts, args[1])
	if err != nil {
		ts.Fatalf("maxrss: %v", err)
	}
	cmd := exec.Command(path, args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = append(os.Environ(), "PATH="+ts.Getenv("PATH"), "HOME="+ts.Getenv("HOME"))
	cmd.Run()
	if cmd.ProcessState == nil {
		ts.Fatalf("maxrss: %s did not run", args[1])
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		ts.Logf("maxrss: no rusage on this platform")
		return
	}
	mb := ru.Maxrss / 1024 // kilobytes on Linux
	ts.Logf("peak RSS %d MB (limit %d MB)", mb, limit)
	if mb > int64(limit) {
		ts.Fatalf("peak RSS %d MB over the limit of %d MB", mb, limit)
	}
}

// cmdROMount mounts a folder read-only over itself until the script ends:
// romount DIR. Scripts using it start with [!romount] skip.
func cmdROMount(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: romount DIR")
	}
	dir := ts.MkAbs(args[0])
	if err := mountReadOnly(dir); err != nil {
		ts.Fatalf("romount: %v", err)
	}
	ts.Defer(func() { exec.Command("umount", "-l", dir).Run() })
}

// mountReadOnly bind-mounts dir over itself and makes the mount read-only.
func mountReadOnly(dir string) error {
	if out, err := exec.Command("mount", "--bind", dir, dir).CombinedOutput(); err != nil {
		return fmt.Errorf("mount --bind %s: %v %s", dir, err, out)
	}
	if out, err := exec.Command("mount", "-o", "remount,bind,ro", dir).CombinedOutput(); err != nil {
		exec.Command("umount", "-l", dir).Run()
		return fmt.Errorf("remount %s read-only: %v %s", dir, err, out)
	}
	return nil
}

// canMountReadOnly reports whether this process may mount a folder
// read-only (root, with mount at hand), tried once on a folder of its own.
var canMountReadOnly = sync.OnceValue(func() bool {
	dir, err := os.MkdirTemp("", "romount")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	if mountReadOnly(dir) != nil {
		return false
	}
	exec.Command("umount", "-l", dir).Run()
	return true
})

func lookPath(ts *testscript.TestScript, name string) (string, error) {
	old := os.Getenv("PATH")
	os.Setenv("PATH", ts.Getenv("PATH"))
	defer os.Setenv("PATH", old)
	return exec.LookPath(name)
}

// cmdChatModel starts a scripted OpenAI-compatible chat endpoint for the
// rest of the script and sets $CHAT_URL to its base: chatmodel. It answers
// by the file asked about: a name with "empty" gets an empty answer, with
// "broken" an HTTP 400, with "garbage" a body that is not JSON; any other
// "Summary of PATH." Every request is appended to $WORK/chat.log (the
// model, the Authorization header and the file as sent).
func cmdChatModel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: chatmodel")
	}
	logPath := filepath.Join(ts.Getenv("WORK"), "chat.log")
	var mu sync.Mutex
	chat, stop, err := agenttest.StartChat(func(_ int, req agenttest.ChatRequest) agenttest.ChatReply {
		user := req.Messages[len(req.Messages)-1].Content
		path, _, _ := strings.Cut(strings.TrimPrefix(user, "File: "), "\n")
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "request model=%s auth=%q\n%s\n", req.Model, req.Auth, user)
			f.Close()
		}
		switch {
		case strings.Contains(path, "empty"):
			return agenttest.ChatReply{Text: ""}
		case strings.Contains(path, "broken"):
			return agenttest.ChatReply{Status: 400, Body: `{"error":{"message":"model not loaded"}}`}
		case strings.Contains(path, "garbage"):
			return agenttest.ChatReply{Body: "<html>bad gateway</html>"}
		}
		return agenttest.ChatReply{Text: "Summary of " + path + ": what the file does, in plain words."}
	})
	if err != nil {
		ts.Fatalf("chatmodel: %v", err)
	}
	ts.Defer(stop)
	ts.Setenv("CHAT_URL", chat.URL)
}

// testbinRun runs the tests under testbin.Run.
type testbinRun struct{ m *testing.M }

func (r testbinRun) Run() int { return testbin.Run(r.m) }
