package integrate

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPermissionRulesKeepTheirMeaning: a line is rewritten, with
// permissionDecision "allow", only where the user's rules (settings files
// and Claude Code's command line) allow the original; where they would
// ask or deny, or where freshctx cannot tell, the line is left as written
// for Claude Code to judge.
func TestPermissionRulesKeepTheirMeaning(t *testing.T) {
	for name, tc := range map[string]struct {
		settings, local string // .claude/settings.json, settings.local.json
		user            string // ~/.claude/settings.json
		args            []string
		mode, line      string
		rewrite         bool
	}{
		"allowed by the project":       {settings: `{"permissions":{"allow":["Bash(go test:*)"]}}`, line: "go test ./...", rewrite: true},
		"allowed by the user":          {user: `{"permissions":{"allow":["Bash(go test:*)"]}}`, line: "go test ./...", rewrite: true},
		"allowed locally":              {local: `{"permissions":{"allow":["Bash(go test ./...)"]}}`, line: "go test ./...", rewrite: true},
		"allowed by a pattern":         {settings: `{"permissions":{"allow":["Bash(go test *)"]}}`, line: "go test -run X ./...", rewrite: true},
		"allowed on the command line":  {args: []string{"claude", "-p", "x", "--allowedTools", "Read,Bash(go test:*)"}, line: "go test ./...", rewrite: true},
		"all Bash on the command line": {args: []string{"claude", "--allowedTools=Bash"}, line: "go test ./... && cd x", rewrite: true},
		"permissions skipped":          {args: []string{"claude", "--dangerously-skip-permissions"}, line: "go test ./...", rewrite: true},
		"bypass mode":                  {mode: "bypassPermissions", line: "go test ./...", rewrite: true},
		"no rule: the user is asked":   {line: "go test ./..."},
		"another command allowed":      {settings: `{"permissions":{"allow":["Bash(go build:*)"]}}`, line: "go test ./..."},
		"asked about":                  {settings: `{"permissions":{"allow":["Bash"],"ask":["Bash(go test:*)"]}}`, line: "go test ./..."},
		"denied":                       {settings: `{"permissions":{"deny":["Bash(go test:*)"]}}`, mode: "bypassPermissions", line: "go test ./..."},
		"denied on the command line":   {args: []string{"claude", "--disallowedTools", "Bash(go test:*)"}, mode: "bypassPermissions", line: "go test ./..."},
		"the rewrite is denied":        {settings: `{"permissions":{"allow":["Bash"],"deny":["Bash(freshctx:*)"]}}`, line: "go test ./..."},
		"a part not allowed":           {settings: `{"permissions":{"allow":["Bash(go test:*)"]}}`, line: "cd sub && go test ./..."},
		"a settings file unreadable":   {settings: `{"permissions":{"allow":["Bash"]}}`, local: `{`, line: "go test ./..."},
		"a prefix is not a rule":       {settings: `{"permissions":{"allow":["Bash(go test:*)"]}}`, line: "go testify"},
	} {
		t.Run(name, func(t *testing.T) {
			home, project := t.TempDir(), t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("CLAUDE_PROJECT_DIR", "")
			for path, text := range map[string]string{filepath.Join(project, ".claude", "settings.json"): tc.settings,
				filepath.Join(project, ".claude", "settings.local.json"): tc.local, filepath.Join(home, ".claude", "settings.json"): tc.user} {
				if text != "" {
					write(t, path, text)
				}
			}
			in, _ := json.Marshal(map[string]any{"command": tc.line})
			h := &HookInput{Event: "PreToolUse", ToolName: "Bash", ToolInput: in, Cwd: project, PermissionMode: tc.mode}
			out, err := Hook(context.Background(), ClaudeCodeAgent, h, HookServices{RunCommands: []string{"go test", "go build", "go testify"},
				ClaudeArgs: func() []string { return tc.args }, Self: "/usr/local/bin/freshctx"})
			if err != nil {
				t.Fatal(err)
			}
			var reply struct {
				HookSpecificOutput struct {
					PermissionDecision string `json:"permissionDecision"`
				} `json:"hookSpecificOutput"`
			}
			json.Unmarshal([]byte(out), &reply)
			if rewritten := out != ""; rewritten != tc.rewrite || rewritten && reply.HookSpecificOutput.PermissionDecision != "allow" {
				t.Fatalf("hook answered %q, want a rewrite %v with allow", out, tc.rewrite)
			}
		})
	}
}

// TestCodexRewritesOnlyWhereNothingIsAsked: Codex applies a rewrite only
// with "allow", so a line is rewritten only in a session that asks about
// nothing (codex exec, or approvals bypassed).
func TestCodexRewritesOnlyWhereNothingIsAsked(t *testing.T) {
	in, _ := json.Marshal(map[string]any{"command": "go test ./..."})
	for mode, want := range map[string]bool{"bypassPermissions": true, "default": false, "": false, "acceptEdits": false} {
		h := &HookInput{Event: "PreToolUse", ToolName: "Bash", ToolInput: in, PermissionMode: mode}
		out, err := Hook(context.Background(), CodexAgent, h, HookServices{RunCommands: []string{"go test"}})
		if err != nil {
			t.Fatal(err)
		}
		if (out != "") != want {
			t.Errorf("permission_mode %q: hook answered %q, want a rewrite %v", mode, out, want)
		}
	}
}

// TestAgentArgsFindsTheAgent: the command line of the agent the hook runs
// under is found among the process's ancestors: the test runs itself as a
// child, whose parent (this test binary) plays the agent.
func TestAgentArgsFindsTheAgent(t *testing.T) {
	if os.Getenv("FRESHCTX_AGENT_ARGS_CHILD") != "" {
		b, _ := json.Marshal(agentArgs(filepath.Base(os.Args[0])))
		os.Stdout.Write(b)
		os.Exit(0)
	}
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc")
	}
	if got := parentOf(os.Getpid()); got != os.Getppid() {
		t.Fatalf("parentOf(self) = %d, want %d", got, os.Getppid())
	}
	if got := agentArgs("no-such-agent-anywhere"); got != nil {
		t.Fatalf("agentArgs of an agent not running = %q", got)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAgentArgsFindsTheAgent$")
	cmd.Env = append(os.Environ(), "FRESHCTX_AGENT_ARGS_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if want := os.Args; len(got) != len(want) || got[0] != want[0] {
		t.Fatalf("the child found %q, want this test's own command line %q", got, want)
	}
}
