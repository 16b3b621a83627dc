package integrate

import (
	"os"
	"path/filepath"

	"github.com/pelletier/go-toml/v2"
)

// CodexHome is the folder of Codex's own configuration: $CODEX_HOME, else
// ~/.codex ("" when neither can be known).
func CodexHome() string {
	if home := os.Getenv("CODEX_HOME"); home != "" {
		return home
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".codex")
}

// codexApprovesFreshctx reports whether the user's Codex configuration
// approves freshctx's MCP read tool without asking, as init writes it
// (default_tools_approval_mode = "approve", and no tool of it set to
// anything else): the user's config.toml, then the project's .codex one,
// which overrides it. Only then may the hook answer "allow" for a call.
func codexApprovesFreshctx(cwd string) bool {
	approved := false
	for _, path := range []string{filepath.Join(CodexHome(), "config.toml"), filepath.Join(cwd, ".codex", "config.toml")} {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var m map[string]any
		if toml.Unmarshal(b, &m) != nil {
			return false // a file Codex cannot read either: decide nothing
		}
		entry, ok := codexEntry(m)
		if !ok {
			continue
		}
		if mode, ok := entry["default_tools_approval_mode"]; ok {
			approved = mode == "approve"
		}
		tools, _ := entry["tools"].(map[string]any)
		for _, t := range tools {
			tool, _ := t.(map[string]any)
			if mode, ok := tool["approval_mode"]; ok && mode != "approve" {
				return false
			}
		}
	}
	return approved
}
