package integrate

import (
	"path/filepath"
	"testing"
)

// TestAgentTableIsWhole: every row names its agent, its sessions and how
// init installs it; prefixes never collide; MCP clients find their row;
// only hooked agents are hook's.
func TestAgentTableIsWhole(t *testing.T) {
	prefixes := map[string]bool{}
	for _, a := range Agents {
		if a.Agent == "" || a.Title == "" || a.SessionPrefix == "" || a.Install == nil {
			t.Errorf("incomplete row: %+v", a)
		}
		if prefixes[a.SessionPrefix] {
			t.Errorf("%s: session prefix %q taken", a.Agent, a.SessionPrefix)
		}
		prefixes[a.SessionPrefix] = true
		if got, ok := ParseAgent(string(a.Agent)); ok != a.Hooked || ok && got != a.Agent {
			t.Errorf("ParseAgent(%s) = %s, %v; hooked %v", a.Agent, got, ok, a.Hooked)
		}
		if len(a.Events) > 0 && !a.Hooked {
			t.Errorf("%s installs hooks but is not hooked", a.Agent)
		}
		if got := Agent(a.Agent).Session("abc"); got != a.SessionPrefix+"abc" {
			t.Errorf("%s: session %q", a.Agent, got)
		}
	}
	for client, want := range map[string]Agent{"claude-code": ClaudeCodeAgent, "codex-mcp-client": CodexAgent,
		"Codex": CodexAgent, "cursor-vscode": CursorAgent, "freshctx-pi": PiAgent} {
		if a, ok := ForClient(client); !ok || a.Agent != want {
			t.Errorf("ForClient(%q) = %s, %v; want %s", client, a.Agent, ok, want)
		}
	}
	if a, ok := ForClient("some-other-client"); ok {
		t.Errorf("an unknown client matched %s", a.Agent)
	}
	if a, _ := ForClient("codex-mcp-client"); a.MaxLines == 0 || a.MaxBytes == 0 {
		t.Error("Codex's read limits are gone")
	}
}

// TestEveryAgentInstallsFromItsRow: init plans each agent's files from its
// row, in the project or the user's home, and --remove only where offered.
func TestEveryAgentInstallsFromItsRow(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	t.Setenv("CODEX_HOME", filepath.Join(home, ".codex"))
	for _, a := range Agents {
		for _, user := range []bool{false, true} {
			changes, err := a.Install(Place{Root: root, Home: home, User: user, RunCommands: testRunCommands})
			if err != nil || len(changes) == 0 {
				t.Fatalf("%s (user %v): %v, %d changes", a.Agent, user, err, len(changes))
			}
			want := root
			if user {
				want = home
			}
			for _, c := range changes {
				if rel, err := filepath.Rel(want, c.Path); err != nil || rel == ".." || filepath.IsAbs(rel) || rel[:2] == ".." {
					t.Errorf("%s (user %v) writes %s, outside %s", a.Agent, user, c.Path, want)
				}
			}
		}
	}
}
