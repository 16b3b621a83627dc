package testbin

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// CodexBashHook runs `bin init codex --project` in dir (a git work tree)
// with env and returns the command it wrote for Codex's PreToolUse hook
// on Bash: what Codex runs, with bash -c, for every shell line.
func CodexBashHook(bin, dir string, env []string) (string, error) {
	init := exec.Command(bin, "init", "codex", "--project")
	init.Dir, init.Env = dir, env
	if out, err := init.CombinedOutput(); err != nil {
		return "", fmt.Errorf("init codex: %w\n%s", err, out)
	}
	var file struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	data, err := os.ReadFile(filepath.Join(dir, ".codex", "hooks.json"))
	if err == nil {
		err = json.Unmarshal(data, &file)
	}
	if err != nil {
		return "", fmt.Errorf("the hooks init codex wrote: %w", err)
	}
	for _, g := range file.Hooks["PreToolUse"] {
		if g.Matcher == "Bash" && len(g.Hooks) == 1 {
			return g.Hooks[0].Command, nil
		}
	}
	return "", fmt.Errorf("init codex put no Bash hook in %s", data)
}
