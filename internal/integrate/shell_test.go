package integrate

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A routed line means in the rewritten command what it meant to the
// agent's shell: bash's "&>" sends both streams to the file (sh would run
// the command in the background and truncate the file).
func TestRoutedLineKeepsTheAgentsShell(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	// A stand-in for freshctx that runs what follows "run --".
	self := filepath.Join(dir, "fake freshctx")
	if err := os.WriteFile(self, []byte("#!/bin/sh\nshift 2\nexec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	line := `echo routed &> out.txt; [[ -s out.txt ]] && echo kept`
	in, _ := json.Marshal(map[string]any{"command": line})
	t.Setenv("HOME", t.TempDir())
	out, err := Hook(context.Background(), ClaudeCodeAgent, &HookInput{Event: "PreToolUse", ToolName: "Bash", ToolInput: in, Cwd: dir},
		HookServices{RunCommands: []string{"echo"}, Self: self, ClaudeArgs: func() []string { return []string{"claude", "--allowedTools", "Bash"} }})
	if err != nil {
		t.Fatal(err)
	}
	var reply struct {
		HookSpecificOutput struct {
			UpdatedInput struct {
				Command string `json:"command"`
			} `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &reply); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	cmd := exec.Command(bash, "-c", reply.HookSpecificOutput.UpdatedInput.Command)
	cmd.Dir = dir
	got, err := cmd.CombinedOutput()
	if err != nil || string(got) != "kept\n" {
		t.Fatalf("%q printed %q (%v), want kept", reply.HookSpecificOutput.UpdatedInput.Command, got, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(b) != "routed\n" {
		t.Fatalf("out.txt = %q", b)
	}
}
