package integrate

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/teststore"
	"github.com/freshctx/freshctx/internal/tokens"
)

// The picture is what the model holds: each test here is a case where the
// hook once answered [unchanged …] for content the model did not hold.

// pictureRig is a read cache on a folder, and Claude Code's hooks on it.
type pictureRig struct {
	t   *testing.T
	rc  *readcache.Service
	dir string
}

func newPictureRig(t *testing.T) *pictureRig {
	dir := t.TempDir()
	rc := &readcache.Service{WS: teststore.Workspace(t, dir), Store: teststore.Open(t, "", store.Options{}), Cwd: dir}
	return &pictureRig{t: t, rc: rc, dir: dir}
}

func (r *pictureRig) write(name, content string) string {
	p := filepath.Join(r.dir, name)
	write(r.t, p, content)
	return p
}

// read runs the hook for h and returns what the model got instead of
// Read's own content ("" when Read's content stood).
func (r *pictureRig) read(h *HookInput) string {
	r.t.Helper()
	out := claudeHook(r.t, r.rc, h)
	if out == "" {
		return ""
	}
	var reply struct {
		HookSpecificOutput struct {
			UpdatedToolOutput claudeReadOutput `json:"updatedToolOutput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &reply); err != nil {
		r.t.Fatalf("hook output %s: %v", out, err)
	}
	return reply.HookSpecificOutput.UpdatedToolOutput.File.Content
}

// numbered is a file of n lines long enough that a note is cheaper.
func numbered(n int, tag string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d of %s, long enough that the note is the cheaper answer\n", i, tag)
	}
	return b.String()
}

// TestUnmatchedDeliveryErasesThePicture: a Read whose text the hook cannot
// match to the file's bytes (normalised in a way it does not know, the file
// rewritten between Read and the hook, cut by Read's token cap) leaves the
// model holding that text; the older picture must not survive it, or the
// file's return to the older version is answered [unchanged].
func TestUnmatchedDeliveryErasesThePicture(t *testing.T) {
	a := numbered(30, "a")
	b := numbered(30, "b")
	for name, deliverB := range map[string]func(r *pictureRig, p string) *HookInput{
		// The hook's idea of Claude Code's form is not what it delivered:
		// text the model got that differs from the file's now.
		"normalised unknowingly": func(r *pictureRig, p string) *HookInput {
			r.write("f.txt", strings.ReplaceAll(b, "\n", "\r\n"))
			h := claudeReadHook(p, b, 0, 0)
			r.write("f.txt", strings.ReplaceAll(b, "\n", "\r\r\n")) // what Read saw is gone
			return h
		},
		"rewritten between Read and the hook": func(r *pictureRig, p string) *HookInput {
			h := claudeReadHook(p, b, 0, 0)
			r.write("f.txt", numbered(30, "c"))
			return h
		},
		"cut by Read's token cap": func(r *pictureRig, p string) *HookInput {
			r.write("f.txt", b)
			h := claudeReadHook(p, b, 0, 0)
			var resp map[string]map[string]any
			json.Unmarshal(h.ToolResponse, &resp)
			resp["file"]["truncatedByTokenCap"] = true
			resp["file"]["content"] = b[:200]
			h.ToolResponse, _ = json.Marshal(map[string]any{"type": "text", "file": resp["file"]})
			return h
		},
		"a Latin-1 file as Read shows it": func(r *pictureRig, p string) *HookInput {
			latin := strings.Replace(b, "line 3 of", "caf\xe9 3 of", 1)
			r.write("f.txt", latin)
			return claudeReadHook(p, latin, 0, 0)
		},
		"a CRLF file as Read shows it": func(r *pictureRig, p string) *HookInput {
			crlf := strings.ReplaceAll(b, "\n", "\r\n")
			r.write("f.txt", crlf)
			return claudeReadHook(p, crlf, 0, 0)
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := newPictureRig(t)
			p := r.write("f.txt", a)
			if got := r.read(claudeReadHook(p, a, 0, 0)); got != "" {
				t.Fatalf("first read replaced by %q", got)
			}
			r.read(deliverB(r, p)) // the model's latest copy is B, or text nobody knows
			r.write("f.txt", a)
			if got := r.read(claudeReadHook(p, a, 0, 0)); strings.HasPrefix(got, "[unchanged") {
				t.Fatalf("the file went back to A after the model was given B: answered %q", got)
			}
		})
	}
}

// TestClientFormFilesGetNotes: a CRLF, a Latin-1 and a BOM file, read
// twice through Claude Code's Read, get the note the second time: the
// read cache records them as Read delivered them.
func TestClientFormFilesGetNotes(t *testing.T) {
	for name, file := range map[string]string{
		"crlf":    strings.ReplaceAll(numbered(30, "f"), "\n", "\r\n"),
		"latin-1": strings.ReplaceAll(numbered(30, "f"), "long", "l\xf6ng"),
		"bom":     "\ufeff" + numbered(30, "f"),
	} {
		t.Run(name, func(t *testing.T) {
			r := newPictureRig(t)
			p := r.write("f.txt", file)
			r.read(claudeReadHook(p, file, 0, 0))
			if got := r.read(claudeReadHook(p, file, 0, 0)); !strings.HasPrefix(got, "[unchanged: f.txt, all 30 lines") {
				t.Fatalf("second read of an unchanged %s file: %q", name, got)
			}
			edited := strings.Replace(file, "line 7 of", "line seven of", 1)
			r.write("f.txt", edited)
			got := r.read(claudeReadHook(p, edited, 0, 0))
			if !strings.Contains(got, "+line seven of") || strings.Contains(got, "\r") {
				t.Fatalf("read after an edit: %q", got)
			}
		})
	}
}

// TestRangeIsNotTheWholeFile: Read delivered lines 1-10 of a 12-line file
// and said so (totalLines); the file was cut to those 10 lines before the
// hook ran. The model holds 10 lines of a file it was told has 12: a whole
// read of the 10-line file is no [unchanged].
func TestRangeIsNotTheWholeFile(t *testing.T) {
	r := newPictureRig(t)
	twelve := numbered(12, "f")
	p := r.write("f.txt", twelve)
	h := claudeReadHook(p, twelve, 1, 10)
	ten := strings.Join(strings.SplitAfter(twelve, "\n")[:10], "")
	r.write("f.txt", ten)
	r.read(h)
	if got := r.read(claudeReadHook(p, ten, 0, 0)); strings.HasPrefix(got, "[unchanged") {
		t.Fatalf("whole read after a range was delivered: %q", got)
	}
	// A range Read that is right is recorded as that range only.
	r2 := newPictureRig(t)
	p = r2.write("f.txt", twelve)
	r2.read(claudeReadHook(p, twelve, 1, 10))
	if got := r2.read(claudeReadHook(p, twelve, 0, 0)); strings.HasPrefix(got, "[unchanged") {
		t.Fatalf("whole read after lines 1-10 of 12: %q", got)
	}
	if got := r2.read(claudeReadHook(p, twelve, 3, 5)); got != "[unchanged: f.txt lines 3-7, as you last read them]" {
		t.Fatalf("range read inside what was read: %q", got)
	}
}

// TestModelEditsMoveThePicture: after the model's own Edit, Write,
// MultiEdit or NotebookEdit the model believes its change; a revert by the
// user must not be answered [unchanged] from the read before the edit. A
// read right after the edit may be a diff from what the model read (it
// applies it to that), never a note.
func TestModelEditsMoveThePicture(t *testing.T) {
	for _, tool := range claudeEdits {
		t.Run(tool, func(t *testing.T) {
			r := newPictureRig(t)
			a := numbered(30, "f")
			p := r.write("f.txt", a)
			r.read(claudeReadHook(p, a, 0, 0))
			r.write("f.txt", strings.Replace(a, "line 7", "line seven", 1)) // the model's edit
			key := "file_path"
			if tool == "NotebookEdit" {
				key = "notebook_path"
			}
			in, _ := json.Marshal(map[string]any{key: p, "old_string": "line 7", "new_string": "line seven"})
			claudeHook(t, r.rc, &HookInput{Event: "PostToolUse", SessionID: "c1", ToolName: tool, ToolInput: in,
				ToolResponse: json.RawMessage(`{"filePath":"` + p + `"}`)})
			r.write("f.txt", a) // the user reverts it
			if got := r.read(claudeReadHook(p, a, 0, 0)); strings.HasPrefix(got, "[unchanged") {
				t.Fatalf("read after the model's %s and the user's revert: %q", tool, got)
			}
			if got := r.read(claudeReadHook(p, a, 0, 0)); !strings.HasPrefix(got, "[unchanged") {
				t.Fatalf("the read after that one, of the file it delivered: %q", got)
			}
		})
		t.Run(tool+" then read", func(t *testing.T) {
			r := newPictureRig(t)
			a := numbered(30, "f")
			p := r.write("f.txt", a)
			r.read(claudeReadHook(p, a, 0, 0))
			r.read(claudeReadHook(p, a, 3, 4))
			b := strings.Replace(a, "line 7 of", "line seven of", 1)
			r.write("f.txt", b)
			in, _ := json.Marshal(map[string]any{"file_path": p, "notebook_path": p})
			claudeHook(t, r.rc, &HookInput{Event: "PostToolUse", SessionID: "c1", ToolName: tool, ToolInput: in})
			if got := r.read(claudeReadHook(p, b, 3, 4)); strings.HasPrefix(got, "[unchanged") {
				t.Fatalf("range read after the model's %s: %q", tool, got)
			}
			if got := r.read(claudeReadHook(p, b, 0, 0)); strings.HasPrefix(got, "[unchanged") || got != "" && !strings.Contains(got, "+line seven of") {
				t.Fatalf("whole read after the model's %s: %q", tool, got)
			}
		})
	}
}

// TestClientCapsAreTheClients: Claude Code's Read delivers a 60 KB file
// whole; freshctx's own 50 KB cap must not cut what it records or answers:
// the next read of the unchanged file is a note for all of it, and a
// change on line 19 reaches the model, with no "[truncated" of freshctx's.
func TestClientCapsAreTheClients(t *testing.T) {
	r := newPictureRig(t)
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "%d %s\n", i, strings.Repeat("long line text ", 200))
	}
	big := b.String()
	if len(big) < 55<<10 {
		t.Fatalf("the file is %d bytes, want over 55 KB", len(big))
	}
	p := r.write("longlines.txt", big)
	r.read(claudeReadHook(p, big, 0, 0))
	if got := r.read(claudeReadHook(p, big, 0, 0)); got != "[unchanged: longlines.txt, all 20 lines as you last read them]" {
		t.Fatalf("second read of the 60 KB file: %q", got)
	}
	changed := strings.Replace(big, "19 long line", "19 LONG line", 1)
	r.write("longlines.txt", changed)
	got := r.read(claudeReadHook(p, changed, 0, 0))
	if strings.Contains(got, "[truncated") || strings.Contains(got, "unchanged") {
		t.Fatalf("read after line 19 changed: %q", got[:min(len(got), 300)])
	}
	if got != "" && !strings.Contains(got, "+19 LONG line") {
		t.Fatalf("the change on line 19 did not reach the model: %q", got[:min(len(got), 300)])
	}
}

// TestNotesNameWhatTheModelSaw: a note names the file and its lines and
// "your last read", never an entry number the model never saw.
func TestNotesNameWhatTheModelSaw(t *testing.T) {
	r := newPictureRig(t)
	a := numbered(30, "f")
	p := r.write("f.txt", a)
	r.read(claudeReadHook(p, a, 0, 0))
	for _, got := range []string{r.read(claudeReadHook(p, a, 0, 0)), r.read(claudeReadHook(p, a, 4, 6))} {
		if !strings.Contains(got, "f.txt") || !strings.Contains(got, "as you last read them") || strings.Contains(got, "entry") {
			t.Fatalf("note %q", got)
		}
	}
	edited := strings.Replace(a, "line 7 of", "line seven of", 1)
	r.write("f.txt", edited)
	if got := r.read(claudeReadHook(p, edited, 0, 0)); !strings.HasPrefix(got, "[f.txt changed since you last read it") || strings.Contains(got, "entry") {
		t.Fatalf("diff header %q", got[:min(len(got), 120)])
	}
}

// TestReplacementIsCheaperAsTheClientSendsIt: Claude Code numbers every
// line of what a hook puts in place of Read's content, the diff's lines
// too. A diff of scattered changes that is cheaper than the file only
// without those numbers must not replace it: whatever replaces Read's
// content costs fewer tokens, as sent, than Read's content would.
func TestReplacementIsCheaperAsTheClientSendsIt(t *testing.T) {
	r := newPictureRig(t)
	var b strings.Builder
	for i := 1; i <= 150; i++ {
		fmt.Fprintf(&b, "x%d = %d\n", i, i)
	}
	a := b.String()
	p := r.write("f.go", a)
	r.read(claudeReadHook(p, a, 0, 0))
	for step, every := range []int{2, 3, 4, 6, 9, 15, 40} {
		lines := strings.SplitAfter(claudeForm{}.Text([]byte(a)), "\n")
		for i := step % every; i < len(lines)-1; i += every {
			lines[i] = fmt.Sprintf("y%d = %d\n", i, i*7)
		}
		next := strings.Join(lines, "")
		r.write("f.go", next)
		h := claudeReadHook(p, next, 0, 0)
		got := r.read(h)
		if got != "" {
			plain := tokens.Count(claudeForm{}.Sent(claudeForm{}.Text([]byte(next)), 1))
			sent := tokens.Count(claudeForm{}.Sent(got, 1))
			if sent >= plain {
				t.Fatalf("every %d lines changed: the replacement costs %d tokens as sent, Read's content %d", every, sent, plain)
			}
		}
		a = next
	}
}

// TestCodexReadHookAllowsOnlyWhatTheUserApproved: Codex applies the
// session the hook names only with permissionDecision "allow", which must
// approve nothing the user's configuration would not: it is given only
// while freshctx's tools are approved in advance there (as init writes
// them), in the user's config.toml or the project's.
func TestCodexReadHookAllowsOnlyWhatTheUserApproved(t *testing.T) {
	in := json.RawMessage(`{"path":"a.txt"}`)
	h := &HookInput{Event: "PreToolUse", SessionID: "s1", ToolName: MCPReadTool, ToolInput: in}
	for name, tc := range map[string]struct {
		user, project string
		allow         bool
	}{
		"as init writes it":       {codexTable, "", true},
		"no freshctx server":      {"model = \"x\"\n", "", false},
		"asks before each call":   {"[mcp_servers.freshctx]\ncommand = \"freshctx\"\ndefault_tools_approval_mode = \"prompt\"\n", "", false},
		"the project asks":        {codexTable, "[mcp_servers.freshctx]\ndefault_tools_approval_mode = \"prompt\"\n", false},
		"one tool asks":           {codexTable + "[mcp_servers.freshctx.tools.read]\napproval_mode = \"prompt\"\n", "", false},
		"not TOML":                {"[[[", "", false},
		"approved by the project": {"", "[mcp_servers.freshctx]\ndefault_tools_approval_mode = \"approve\"\n", true},
	} {
		t.Run(name, func(t *testing.T) {
			home, project := t.TempDir(), t.TempDir()
			t.Setenv("CODEX_HOME", home)
			write(t, filepath.Join(home, "config.toml"), tc.user)
			if tc.project != "" {
				write(t, filepath.Join(project, ".codex", "config.toml"), tc.project)
			}
			h.Cwd = project
			out, err := Hook(context.Background(), CodexAgent, h, HookServices{})
			if err != nil {
				t.Fatal(err)
			}
			allowed := strings.Contains(out, `"permissionDecision":"allow"`) && strings.Contains(out, `"session":"codex-s1"`)
			if allowed != tc.allow || !tc.allow && out != "" {
				t.Fatalf("hook answered %q, want allow %v", out, tc.allow)
			}
		})
	}
}
