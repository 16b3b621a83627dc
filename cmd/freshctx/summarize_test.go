package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/agenttest"
	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/testrace"
)

// TestSummarizeAutoInterruptedAndResumed: Ctrl-C in the middle of a
// registry summarize --auto keeps every summary that came, says it
// stopped (exit 130), and the next run sends only the files left.
func TestSummarizeAutoInterruptedAndResumed(t *testing.T) {
	testrace.Skip(t, "drives separate processes")
	bin := testbin.Build(t)
	r := testgit.New(t)
	const files = 12
	for i := range files {
		r.Write(fmt.Sprintf("f%02d.go", i), fmt.Sprintf("package f\n\n// F%d is the %dth value.\nvar F%d = %d\n", i, i, i, i))
	}
	r.Commit("init")
	var answered atomic.Int32
	chat := agenttest.NewChat(t, func(n int, req agenttest.ChatRequest) agenttest.ChatReply {
		if answered.Load() >= 4 {
			// Slow after the fourth: the run is interrupted while waiting.
			return agenttest.ChatReply{Text: "Summary: a value and its comment, nothing more.", Delay: time.Minute}
		}
		answered.Add(1)
		return agenttest.ChatReply{Text: "Summary: a value and its comment, nothing more."}
	})
	env := append(os.Environ(), "HOME="+t.TempDir())
	run := func(args ...string) (string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = r.Dir, env
		out, err := cmd.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	run("config", "summarize.endpoint", chat.URL)
	run("config", "summarize.model", "tiny")

	cmd := exec.Command(bin, "registry", "summarize", "--auto", "--jobs", "1", "--json")
	cmd.Dir, cmd.Env = r.Dir, env
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); answered.Load() < 4 || len(chat.Requests()) < 5; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the run did not get to its fifth request: %d answered", answered.Load())
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want status 130; output %s", err, out.String())
	}
	var res struct {
		Summarized []string
		NotSent    []struct{ Path, Reason string } `json:"not_sent"`
		Stopped    string
	}
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(res.Summarized) != 4 || len(res.NotSent) != files-4 || res.Stopped != "interrupted" {
		t.Fatalf("interrupted run: %d summarized, %d not sent, stopped %q", len(res.Summarized), len(res.NotSent), res.Stopped)
	}
	list, _ := run("registry", "list", "--json")
	if n := strings.Count(list, `"summary_by":"model"`); n != 4 {
		t.Fatalf("%d summaries kept after the interruption, want 4:\n%s", n, list)
	}

	answered.Store(-100) // answer at once from now on
	sent := len(chat.Requests())
	again, code := run("registry", "summarize", "--auto", "--json")
	if code != 0 || len(chat.Requests())-sent != files-4 {
		t.Fatalf("the second run: exit %d, %d requests, want %d:\n%s", code, len(chat.Requests())-sent, files-4, again)
	}
	list, _ = run("registry", "list", "--json")
	if n := strings.Count(list, `"summary_by":"model"`); n != files {
		t.Fatalf("%d summaries after the second run, want %d", n, files)
	}
}
