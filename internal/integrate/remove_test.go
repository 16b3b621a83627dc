package integrate

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// emptyInside is an empty object or array written with space inside:
// init fills it, and --remove gives it back without the space.
var emptyInside = regexp.MustCompile(`\{\s+\}|\[\s+\]`)

func sameBytes(a, b string) bool {
	return emptyInside.ReplaceAllStringFunc(a, func(s string) string { return s[:1] + s[len(s)-1:] }) ==
		emptyInside.ReplaceAllStringFunc(b, func(s string) string { return s[:1] + s[len(s)-1:] })
}

// filledEmpty is a place freshctx fills that was there and empty: init
// --remove takes it out with freshctx's entries, as it does the ones init
// made (the common case).
var filledEmpty = regexp.MustCompile(`"(hooks|mcpServers|PreToolUse|SessionStart)":\s*(\{\s*\}|\[\s*\])`)

// TestRemoveGivesBackTheFile: for any JSON configuration (as
// TestInitChangesNothingButItsOwn draws them), init then init --remove
// gives the file back byte for byte, or removes it when it holds nothing
// else. A hooks, mcpServers or event list that was there empty goes with
// freshctx's entries (init made such places when absent: that is what is
// undone).
func TestRemoveGivesBackTheFile(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc := drawObject(t, 0)
		if filledEmpty.MatchString(doc) {
			t.Skip("a place freshctx fills, there and empty")
		}
		dir, err := os.MkdirTemp("", "remove")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "f.json")
		for name, c := range map[string]struct {
			add    func() (Change, error)
			remove func() (Change, error)
		}{
			"hooks": {func() (Change, error) {
				return mergeHooks(path, ClaudeCodeAgent, claudeEvents, bashFilter(testRunCommands))
			}, func() (Change, error) { return removeHooks(path, ClaudeCodeAgent) }},
			"servers": {func() (Change, error) { return mcpServers(path) }, func() (Change, error) { return removeServer(path) }},
		} {
			if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			if r, err := c.remove(); err != nil || r.Action != "unchanged" {
				continue // freshctx's entries were there before init: not this property's case
			}
			added, err := c.add()
			if err != nil || added.Action != "updated" {
				continue // refused (a key twice, not an object), or already there
			}
			if err := Apply([]Change{added}); err != nil {
				t.Fatal(err)
			}
			removed, err := c.remove()
			if err != nil {
				t.Fatalf("%s: remove: %v\n%s", name, err, added.Content)
			}
			if removed.Action == "removed" {
				if strings.TrimSpace(emptyInside.ReplaceAllString(doc, "{}")) != "{}" {
					t.Fatalf("%s: the file was removed, but it held more:\n%s", name, doc)
				}
				continue
			}
			if !sameBytes(removed.Content, doc) {
				t.Fatalf("%s: not given back:\n%s\n→ init →\n%s\n→ remove →\n%s", name, doc, added.Content, removed.Content)
			}
		}
	})
}

// TestRemoveEveryAgent: init then init --remove for each agent, in a
// project whose files hold the user's own settings: every file is as it
// was, and the files init made are gone.
func TestRemoveEveryAgent(t *testing.T) {
	for _, a := range Agents {
		t.Run(string(a.Agent), func(t *testing.T) {
			root, home := t.TempDir(), t.TempDir()
			t.Setenv("CODEX_HOME", filepath.Join(home, ".codex"))
			user := map[string]string{
				".mcp.json":             "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"other\"}\n  }\n}\n",
				".claude/settings.json": "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}]\n  }\n}\n",
				"CLAUDE.md":             "# Project\n\nUse tabs.\n",
				".cursor/mcp.json":      "{\"mcpServers\": {\"other\": {\"command\": \"other\"}}}\n",
			}
			for name, text := range user {
				os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755)
				os.WriteFile(filepath.Join(root, name), []byte(text), 0o644)
			}
			os.MkdirAll(filepath.Join(home, ".codex"), 0o755)
			os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte("# mine\nmodel = \"o3\"\n"), 0o644)
			before := snapshot(t, root, home)
			place := Place{Root: root, Home: home, User: a.UserByDefault, RunCommands: testRunCommands}
			changes, err := a.Install(place)
			if err != nil {
				t.Fatal(err)
			}
			if err := Apply(changes); err != nil {
				t.Fatal(err)
			}
			changes, err = a.Remove(place)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range changes {
				if strings.HasPrefix(c.Action, "kept") {
					t.Errorf("%s: %s", c.Path, c.Action)
				}
			}
			if err := Apply(changes); err != nil {
				t.Fatal(err)
			}
			after := snapshot(t, root, home)
			for name, text := range before {
				if after[name] != text {
					t.Errorf("%s: not as it was:\n%s\n→\n%s", name, text, after[name])
				}
			}
			for name := range after {
				if _, ok := before[name]; !ok {
					t.Errorf("%s: left behind", name)
				}
			}
		})
	}
}

// snapshot is every file under the folders, by path, and every folder.
func snapshot(t *testing.T, dirs ...string) map[string]string {
	out := map[string]string{}
	for _, d := range dirs {
		filepath.Walk(d, func(path string, info os.FileInfo, err error) error {
			if err != nil || path == d {
				return nil
			}
			if info.IsDir() {
				out[path+"/"] = ""
				return nil
			}
			b, _ := os.ReadFile(path)
			out[path] = string(b)
			return nil
		})
	}
	return out
}

// TestRemoveLeavesWhatIsNotFreshctxs: entries not as init writes them are
// left and said; a group that runs the user's hook beside freshctx's
// keeps the user's.
func TestRemoveLeavesWhatIsNotFreshctxs(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	c, err := removeServer(file("a.json", `{"mcpServers": {"freshctx": {"command": "/opt/freshctx", "args": ["mcp"]}}}`))
	if err != nil || !strings.HasPrefix(c.Action, "kept") {
		t.Errorf("another command under freshctx's name: %+v, %v", c, err)
	}
	c, err = removeHooks(file("b.json", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say hi"}, {"type": "command", "command": "freshctx hook claude-code"}]}]}}`), ClaudeCodeAgent)
	if want := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say hi"}]}]}}`; err != nil || c.Content != want {
		t.Errorf("a shared group: %q, %v; want %q", c.Content, err, want)
	}
	c, err = removeNote(file("CLAUDE.md", "# mine\n"+noteBegin+"\nno end marker\n"))
	if err != nil || !strings.HasPrefix(c.Action, "kept") {
		t.Errorf("a stray marker: %+v, %v", c, err)
	}
	c, err = removeNote(file("AGENTS.md", "# mine\n\n"+Note))
	if err != nil || c.Content != "# mine\n" {
		t.Errorf("the note: %q, %v; want the user's text as it was", c.Content, err)
	}
	c, err = removeCodexTable(file("config.toml", "model = \"o3\"\n\n[mcp_servers.freshctx]\ncommand = \"freshctx\"\nargs = [\"mcp\", \"--structured\"]\n"))
	if err != nil || !strings.HasPrefix(c.Action, "kept") {
		t.Errorf("an edited Codex table: %+v, %v", c, err)
	}
}
