package integrate

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// routeBash answers PreToolUse for the agent's Bash: a command line that
// starts with one of prefixes (the setting hooks.run_commands) runs as
// `freshctx run -- SHELL -c LINE` in the agent's shell, so the whole output is kept and the model
// gets the digest and the footer naming the record. Everything else the
// tool was asked is passed on unchanged. Codex applies a rewrite only with
// permissionDecision "allow", which authorizes the rewritten input; its
// own sandbox and approval policy still decide whether the command runs.
func routeBash(agent Agent, h *HookInput, svc HookServices) (string, error) {
	var input map[string]any
	if err := json.Unmarshal(h.ToolInput, &input); err != nil {
		return "", nil
	}
	line, _ := input["command"].(string)
	if !routed(line, svc.RunCommands) {
		return "", nil
	}
	self := "freshctx"
	if svc.Self != "" {
		self = shellQuote(svc.Self)
	}
	shell := "sh"
	if svc.Shell != "" {
		shell = shellQuote(svc.Shell)
	}
	input["command"] = self + " run -- " + shell + " -c " + shellQuote(strings.TrimSpace(line))
	out := map[string]any{"hookEventName": "PreToolUse", "updatedInput": input}
	if agent == CodexAgent {
		out["permissionDecision"] = "allow"
	}
	b, err := json.Marshal(map[string]any{"hookSpecificOutput": out})
	return string(b), err
}

// routed reports whether line starts with one of prefixes as whole words.
func routed(line string, prefixes []string) bool {
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "freshctx ") {
		return false
	}
	for _, p := range prefixes {
		if line == p || strings.HasPrefix(line, p+" ") {
			return true
		}
	}
	return false
}

// AgentShell is the shell an agent runs its Bash tool's lines in, as
// Claude Code and Codex choose it: $SHELL when it is bash or zsh, else bash
// when there is one, else sh. lookPath is exec.LookPath.
func AgentShell(env string, lookPath func(string) (string, error)) string {
	if filepath.IsAbs(env) && (filepath.Base(env) == "bash" || filepath.Base(env) == "zsh") {
		return env
	}
	if p, err := lookPath("bash"); err == nil {
		return p
	}
	return "sh"
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
