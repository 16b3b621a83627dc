package integrate

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

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
		`{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"mcp__freshctx__read","tool_input":{"path":"a\u009b2J.txt"}}`,
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
			if terminalControl(out) {
				panic("the hook's answer carries a terminal control byte: " + out)
			}
		}
	})
}

// terminalControl reports whether s holds ESC, BEL or CSI (U+009B), or a
// lone 0x9B byte, which a terminal not reading UTF-8 takes for CSI. A
// string of "\x1b\x07\x9b" given to strings.ContainsAny would not do: its
// last byte is not UTF-8 and stands for U+FFFD, which an answer holds
// wherever it passes on bytes that were not UTF-8.
func terminalControl(s string) bool {
	for i, r := range s {
		switch {
		case r == 0x1b, r == 0x07, r == 0x9b:
			return true
		case r == utf8.RuneError && s[i] == 0x9b:
			return true
		}
	}
	return false
}

func TestTerminalControl(t *testing.T) {
	for s, want := range map[string]bool{
		"plain": false, "a\ufffd.txt": false, "\u00db": false,
		"\x1b[2J": true, "\a": true, "\u009b2J": true, "a\x9b2J": true,
	} {
		if got := terminalControl(s); got != want {
			t.Errorf("terminalControl(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestAnswerJSONEscapesC1: an answer carries no C1 control character or
// DEL as itself, and decodes to exactly what was encoded.
func TestAnswerJSONEscapesC1(t *testing.T) {
	in := map[string]any{"path": "a\u009b2J\u007f\u0085é.txt", "plain": "ok"}
	out, err := answerJSON(in)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsFunc(out, isC1) || !strings.Contains(out, `\u009b`) {
		t.Fatalf("answer %q", out)
	}
	var back map[string]any
	if err := json.Unmarshal([]byte(out), &back); err != nil || !reflect.DeepEqual(back, in) {
		t.Fatalf("decoded %v, %v; want %v", back, err, in)
	}
}
