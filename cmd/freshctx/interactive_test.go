package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/agenttest"
)

// tmuxClaude is the interactive Claude Code running in a detached tmux
// session, its first-run dialogs answered in its configuration.
type tmuxClaude struct {
	t    *testing.T
	name string
}

func startTmuxClaude(t *testing.T, c *claudeRig, api *agenttest.Anthropic) *tmuxClaude {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	home := ""
	for _, kv := range c.env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	// Onboarding done, the folder trusted, the key and the project's MCP
	// server approved: what a user answers once.
	state, _ := json.Marshal(map[string]any{"hasCompletedOnboarding": true, "theme": "dark",
		"customApiKeyResponses": map[string]any{"approved": []string{"sk-ant-test"}, "rejected": []string{}},
		"projects":              map[string]any{c.dir: map[string]any{"hasTrustDialogAccepted": true, "enabledMcpjsonServers": []string{"freshctx"}}}})
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), state, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.dir, ".claude", "settings.local.json"), []byte(`{"enableAllProjectMcpServers": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("freshctx-%d", time.Now().UnixNano())
	args := []string{"new-session", "-d", "-s", name, "-x", "200", "-y", "50", "-c", c.dir, "env", "-i"}
	for _, kv := range append(c.env, "ANTHROPIC_BASE_URL="+api.URL) {
		if !strings.ContainsAny(kv, "\n") {
			args = append(args, kv)
		}
	}
	args = append(args, c.claude, "--allowedTools", "Read,Edit")
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	tc := &tmuxClaude{t: t, name: name}
	t.Cleanup(func() { stopTmux(name, c.dir) })
	tc.waitFor("the prompt", func() bool { return strings.Contains(tc.screen(), "❯") })
	return tc
}

// stopTmux ends the session and waits (up to 10 s) for what ran in it to
// exit: Claude Code and the registry sync its SessionStart hook started in
// the background still write into the test's folders while they shut
// down, and the folders are removed next.
func stopTmux(name, dir string) {
	out, _ := exec.Command("tmux", "list-panes", "-t", name, "-F", "#{pane_pid}").Output()
	exec.Command("tmux", "kill-session", "-t", name).Run()
	pids := strings.Fields(string(out))
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		alive := exec.Command("pgrep", "-f", dir).Run() == nil
		for _, pid := range pids {
			if exec.Command("kill", "-0", pid).Run() == nil {
				alive = true
			}
		}
		if !alive {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (tc *tmuxClaude) screen() string {
	out, _ := exec.Command("tmux", "capture-pane", "-p", "-t", tc.name).Output()
	return string(out)
}

// send types a line and presses Enter.
func (tc *tmuxClaude) send(line string) {
	tc.t.Helper()
	if out, err := exec.Command("tmux", "send-keys", "-t", tc.name, "-l", line).CombinedOutput(); err != nil {
		tc.t.Fatalf("send-keys: %v %s", err, out)
	}
	time.Sleep(300 * time.Millisecond) // let the input settle before Enter
	exec.Command("tmux", "send-keys", "-t", tc.name, "Enter").Run()
}

func (tc *tmuxClaude) waitFor(what string, done func() bool) {
	tc.t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if done() {
			return
		}
	}
	tc.t.Fatalf("waited a minute for %s; the screen:\n%s", what, tc.screen())
}

// TestClaudeCodeInteractiveClearAndCompact drives the interactive Claude
// Code in tmux: after /clear and after /compact, a file the model read in
// the conversation comes whole again, then as the note.
func TestClaudeCodeInteractiveClearAndCompact(t *testing.T) {
	c := newClaudeRig(t)
	twice := []agenttest.Step{{Calls: []agenttest.ToolUse{c.read()}}, {Calls: []agenttest.ToolUse{c.read()}}, {Text: "done"}}
	api := agenttest.NewAnthropic(t, append(append(append([]agenttest.Step{}, twice...), twice...), twice...))
	tc := startTmuxClaude(t, c, api)
	phase := func(n int) {
		tc.send(fmt.Sprintf("Read notes.txt twice (%d).", n))
		tc.waitFor(fmt.Sprintf("phase %d", n), func() bool { return api.Taken() == 3*n })
	}
	phase(1)
	time.Sleep(time.Second)
	tc.send("/clear")
	time.Sleep(2 * time.Second)
	phase(2)
	time.Sleep(time.Second)
	tc.send("/compact")
	tc.waitFor("the compaction", func() bool { return api.Summaries() > 0 })
	time.Sleep(3 * time.Second)
	phase(3)
	got := api.ToolResults()
	if len(got) != 6 {
		t.Fatalf("the model was sent %d tool results, want 6; the screen:\n%s", len(got), tc.screen())
	}
	for i, r := range got {
		want := "line 40 of notes.txt"
		if i%2 == 1 {
			want = "[unchanged: notes.txt"
		}
		if !strings.Contains(r, want) {
			t.Fatalf("read %d (after %s): the model got %.200q, want %q", i+1, []string{"start", "start", "/clear", "/clear", "/compact", "/compact"}[i], r, want)
		}
	}
}

// key presses one key (a tmux key name) and lets the screen settle.
func (tc *tmuxClaude) key(name string) {
	exec.Command("tmux", "send-keys", "-t", tc.name, name).Run()
	time.Sleep(time.Second)
}

// TestClaudeCodeInteractiveRewind drives /rewind in the interactive Claude
// Code, back to before a turn with a Read, with each of its actions:
// "Restore conversation" takes the turn out of the model's context and
// fires no hook (the transcript's explicit leaf entry is the barrier); the
// two summaries replace it with a summary. After each, the file read again
// reaches the model whole, and the next Read in that turn as the note.
func TestClaudeCodeInteractiveRewind(t *testing.T) {
	for _, tc := range []struct {
		action string
		ups    int    // the prompt chosen: 2 is the first, with the Read; 1 the second
		downs  int    // the action's place in the menu, below the first
		prompt string // what is sent after it; "" sends the prompt the action put back
	}{
		{"Restore conversation", 2, 0, ""},
		{"Summarize from here", 2, 1, ""},
		{"Summarize up to here", 1, 2, "Read notes.txt again."}, // what came before the second prompt
	} {
		t.Run(tc.action, func(t *testing.T) {
			c := newClaudeRig(t)
			api := agenttest.NewAnthropic(t, []agenttest.Step{
				{Calls: []agenttest.ToolUse{c.read()}}, {Text: "done"}, {Text: "ok"},
				{Calls: []agenttest.ToolUse{c.read()}}, {Calls: []agenttest.ToolUse{c.read()}}, {Text: "done"},
			})
			cl := startTmuxClaude(t, c, api)
			cl.send("Read notes.txt.")
			cl.waitFor("the first turn", func() bool { return api.Taken() == 2 })
			time.Sleep(time.Second)
			cl.send("Say ok.")
			cl.waitFor("the second turn", func() bool { return api.Taken() == 3 })
			time.Sleep(time.Second)
			cl.send("/rewind")
			cl.waitFor("the rewind menu", func() bool { return strings.Contains(cl.screen(), "Restore the code and/or conversation") })
			for range tc.ups {
				cl.key("Up")
			}
			cl.key("Enter")
			cl.waitFor("the action menu", func() bool { return strings.Contains(cl.screen(), "Never mind") })
			for range tc.downs {
				cl.key("Down")
			}
			cl.key("Enter")
			if tc.downs > 0 {
				cl.waitFor("the summary", func() bool { return api.Summaries() > 0 })
				time.Sleep(2 * time.Second)
			}
			if tc.prompt == "" {
				cl.key("Enter")
			} else {
				cl.send(tc.prompt)
			}
			cl.waitFor("the turn after it", func() bool { return api.Taken() == 6 })
			got := api.ToolResults()
			if len(got) != 3 {
				t.Fatalf("the model was sent %d tool results, want 3; the screen:\n%s", len(got), cl.screen())
			}
			for i, want := range []string{"line 40 of notes.txt", "line 40 of notes.txt", "[unchanged: notes.txt"} {
				if !strings.Contains(got[i], want) {
					t.Fatalf("read %d: the model got %.200q, want %q", i+1, got[i], want)
				}
			}
			// The first turn's Read did leave what the model was sent.
			reqs, first := api.Requests(), api.Results()[0].ID
			if strings.Contains(string(reqs[len(reqs)-1]), first) {
				t.Fatalf("the model was still sent the first turn's Read (%s): the rewind did not take it out", first)
			}
		})
	}
}
