package integrate

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/teststore"
)

// FuzzHookInput: whatever an agent (or anyone who can write the hook's
// stdin) sends, the hook neither panics nor answers with anything but
// nothing or JSON an agent reads, and its text never carries a terminal
// control byte it was sent.
func FuzzHookInput(f *testing.F) {
	for _, seed := range []string{
		`{"hook_event_name":"SessionStart","session_id":"s","source":"resume"}`,
		`{"hook_event_name":"SessionStart","session_id":"s","source":"\u001b]52;c;aGk=\u0007"}`,
		`{"hook_event_name":"PreCompact","session_id":"s","trigger":"auto","transcript_path":"/dev/zero"}`,
		`{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"cd a && go test ./... | tail"},"permission_mode":"bypassPermissions"}`,
		`{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"mcp__freshctx__read","tool_input":{"path":"a.txt"}}`,
		`{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Read","tool_input":{"file_path":"a.txt"},"tool_response":{"type":"text","file":{"filePath":"a.txt","content":"x","numLines":1,"startLine":1,"totalLines":1}}}`,
		`{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Edit","tool_input":{"file_path":"../../etc/passwd"}}`,
		`{"hook_event_name":"SessionEnd","session_id":"s"}`,
		`not json`, `{}`, `[]`, `null`,
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a line of a file\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	rc := &readcache.Service{WS: teststore.Workspace(f, dir), Store: teststore.Open(f, "", store.Options{}), Cwd: dir}
	f.Fuzz(func(t *testing.T, in []byte) {
		h, err := ParseHook(bytes.NewReader(in))
		if err != nil {
			return
		}
		for _, agent := range []Agent{ClaudeCodeAgent, CodexAgent} {
			out, err := Hook(context.Background(), agent, h, HookServices{ReadCache: rc, RunCommands: []string{"go test"},
				ClaudeArgs: func() []string { return nil }})
			if err != nil {
				continue
			}
			if t := strings.TrimSpace(out); t != "" && !json.Valid([]byte(t)) && !strings.HasPrefix(t, "freshctx: context reset") {
				panic("the hook answered neither JSON nor its note: " + out)
			}
			if strings.ContainsAny(out, "\x1b\x07\x9b") {
				panic("the hook's answer carries a terminal control byte: " + out)
			}
		}
	})
}
