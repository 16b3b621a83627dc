package integrate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestClaudeCodeMergesWithoutLosingKeys(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".claude", "settings.json"), `{
  "permissions": {"allow": ["Bash(go test:*)"]},
  "model": "opus",
  "hooks": {
    "PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "backup.sh"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]
  }
}`)
	write(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {"other": {"command": "other-mcp"}}}`)
	write(t, filepath.Join(root, "CLAUDE.md"), "# Project\n\nOur rules.")
	changes, err := ClaudeCode(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(changes); err != nil {
		t.Fatal(err)
	}
	s := readJSON(t, filepath.Join(root, ".claude", "settings.json"))
	if s["model"] != "opus" || s["permissions"] == nil {
		t.Fatalf("settings lost keys: %v", s)
	}
	hooks := s["hooks"].(map[string]any)
	if hooks["Stop"] == nil {
		t.Fatal("the Stop hook was dropped")
	}
	pre := hooks["PreCompact"].([]any)
	if len(pre) != 2 || !strings.Contains(mustJSON(pre[0]), "backup.sh") || !strings.Contains(mustJSON(pre[1]), HookCommand) {
		t.Fatalf("PreCompact = %s", mustJSON(pre))
	}
	if !strings.Contains(mustJSON(hooks["SessionStart"]), HookCommand) {
		t.Fatal("no SessionStart hook")
	}
	servers := readJSON(t, filepath.Join(root, ".mcp.json"))["mcpServers"].(map[string]any)
	if servers["other"] == nil || servers["freshctx"] == nil {
		t.Fatalf("mcpServers = %v", servers)
	}
	md, _ := os.ReadFile(filepath.Join(root, "CLAUDE.md"))
	if !strings.HasPrefix(string(md), "# Project\n\nOur rules.\n\n") || !strings.Contains(string(md), "recall") {
		t.Fatalf("CLAUDE.md:\n%s", md)
	}

	// A second run changes nothing.
	again, err := ClaudeCode(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range again {
		if c.Action != "unchanged" {
			t.Errorf("second run: %s %s", c.Path, c.Action)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestInitRefusesWhatItCannotRead(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".mcp.json"), "{not json")
	if _, err := ClaudeCode(root); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Fatalf("err = %v", err)
	}
}

func TestCursorAndCodex(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	changes, err := Cursor(root)
	if err != nil || changes[0].Action != "created" {
		t.Fatalf("cursor: %+v %v", changes, err)
	}
	write(t, filepath.Join(home, ".codex", "config.toml"), "model = \"o4\"\n")
	changes, err = Codex(home)
	if err != nil || !strings.HasPrefix(changes[0].Content, "model = \"o4\"\n\n[mcp_servers.freshctx]") {
		t.Fatalf("codex: %+v %v", changes, err)
	}
	Apply(changes)
	if again, _ := Codex(home); again[0].Action != "unchanged" {
		t.Fatal("codex second run changed the file")
	}
}

func TestHookInputIsParsed(t *testing.T) {
	if _, err := ClaudeHook(context.Background(), strings.NewReader("nope"), HookServices{}); err == nil {
		t.Fatal("bad hook input accepted")
	}
	out, err := ClaudeHook(context.Background(), strings.NewReader(`{"hook_event_name":"Stop"}`), HookServices{})
	if err != nil || out != "" {
		t.Fatalf("an unhandled event: %q %v", out, err)
	}
}
