package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("u", false, "update testscript golden files")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"freshctx": main})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
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
			"maxrss": cmdMaxRSS,
		},
		Condition: func(cond string) (bool, error) {
			if cond == "short" {
				return testing.Short(), nil
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

func lookPath(ts *testscript.TestScript, name string) (string, error) {
	old := os.Getenv("PATH")
	os.Setenv("PATH", ts.Getenv("PATH"))
	defer os.Setenv("PATH", old)
	return exec.LookPath(name)
}
