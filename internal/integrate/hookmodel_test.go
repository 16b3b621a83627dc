package integrate

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testdiff"
	"github.com/freshctx/freshctx/internal/testrace"
	"github.com/freshctx/freshctx/internal/workspace"
)

// The model-based test of the hook path: random Claude Code Reads (whole
// or a range, of files with CRLF, Latin-1 bytes or a byte-order mark,
// changed between Read and the hook, cut by Read's token cap), the model's
// own edits, the user's writes and compactions, run through Hook. The
// model's view of each file is kept from what it was actually given; every
// note and diff the hook puts in place of Read's content is checked
// against it.

// heldLine is one line the model holds, and whether it changed the file
// itself since it was shown the line.
type heldLine struct {
	text   string
	edited bool
}

// modelView is what the model holds of one file, in Claude Code's form:
// lines by number (no newline) and the text it was last given whole, if
// that is still what it holds. After a Read cut by its token cap the model
// holds text nobody can name: no line is known until it is given again.
type modelView struct {
	lines   map[int]heldLine
	text    string
	hasText bool
}

type hookWorld struct {
	t     *rapid.T
	ctx   context.Context
	dir   string
	rc    *readcache.Service
	views map[string]*modelView
	// history is every content written, which a write may bring back (a
	// revert: the case where a kept older picture would say unchanged).
	history []string
}

// hookFiles: a second file is rarely touched, so that the sequences that
// matter (read, change, read, revert, read) come often on the first.
var hookFiles = []string{"a.txt", "a.txt", "a.txt", "b.txt"}

// clientLines are Claude Code's lines of its text, less the empty one after
// a last newline (shown as an empty numbered line, it says nothing).
func clientLines(text string) []string {
	ls := strings.Split(text, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

func (w *hookWorld) path(name string) string { return filepath.Join(w.dir, name) }

// content draws a file: lines from a small set, so edits repeat and move
// lines, with CRLF, a Latin-1 byte, a byte-order mark or no last newline.
func drawContent(t *rapid.T, label string) string {
	n := rapid.IntRange(0, 30).Draw(t, label+" lines")
	if rapid.IntRange(0, 5).Draw(t, label+" empty") > 0 {
		n = max(n, 3) // mostly long enough that a note is the cheaper answer
	}
	var b strings.Builder
	for i := range n {
		line := fmt.Sprintf("line %s of a file long enough that a note is cheaper", rapid.SampledFrom([]string{"one", "two", "three", "four", "five", "six"}).Draw(t, fmt.Sprintf("%s line %d", label, i)))
		if rapid.IntRange(0, 20).Draw(t, label+" latin") == 0 {
			line += " caf\xe9"
		}
		b.WriteString(line)
		b.WriteString(rapid.SampledFrom([]string{"\n", "\n", "\n", "\r\n"}).Draw(t, fmt.Sprintf("%s end %d", label, i)))
	}
	s := b.String()
	if rapid.IntRange(0, 8).Draw(t, label+" bom") == 0 {
		s = "\ufeff" + s
	}
	if rapid.IntRange(0, 8).Draw(t, label+" no last newline") == 0 {
		s = strings.TrimRight(s, "\r\n")
	}
	return s
}

// content draws a file's next content: new, or one written before.
func (w *hookWorld) content(t *rapid.T, label string) string {
	if len(w.history) > 0 && rapid.Bool().Draw(t, label+" revert") {
		return rapid.SampledFrom(w.history).Draw(t, label+" earlier")
	}
	c := drawContent(t, label)
	w.history = append(w.history, c)
	return c
}

func (w *hookWorld) write(name, content string) {
	if err := os.WriteFile(w.path(name), []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *hookWorld) userWrite(t *rapid.T) {
	name := rapid.SampledFrom(hookFiles).Draw(t, "file")
	w.write(name, w.content(t, "user"))
}

// read is Claude Code's Read, its PostToolUse hook, and what the model got.
func (w *hookWorld) read(t *rapid.T) {
	name := rapid.SampledFrom(hookFiles).Draw(t, "file")
	b, err := os.ReadFile(w.path(name))
	if err != nil {
		return
	}
	text := claudeForm{}.Text(b)
	all := strings.Split(text, "\n")
	offset, limit := 0, 0
	if rapid.Bool().Draw(t, "range") {
		offset = rapid.IntRange(1, len(all)).Draw(t, "offset")
		limit = rapid.IntRange(1, len(all)-offset+1).Draw(t, "limit")
	}
	h := claudeReadHook(w.path(name), string(b), offset, limit)
	var resp struct{ File map[string]any }
	json.Unmarshal(h.ToolResponse, &resp)
	delivered := resp.File["content"].(string)
	start := int(resp.File["startLine"].(float64))
	cut := false
	switch rapid.SampledFrom([]string{"as read", "as read", "as read", "changed before the hook", "cut by the token cap"}).Draw(t, "between") {
	case "changed before the hook":
		w.write(name, w.content(t, "between"))
	case "cut by the token cap":
		cut = true
		resp.File["truncatedByTokenCap"] = true
		delivered = delivered[:len(delivered)/2]
		resp.File["content"] = delivered
		h.ToolResponse, _ = json.Marshal(map[string]any{"type": "text", "file": resp.File})
	}
	out, err := Hook(w.ctx, ClaudeCodeAgent, h, HookServices{ReadCache: w.rc})
	if err != nil {
		t.Fatalf("hook: %v", err)
	}
	v := w.view(name)
	if out == "" {
		w.given(v, delivered, start, len(clientLines(text)), offset == 0 && limit == 0, cut)
		return
	}
	var reply struct {
		HookSpecificOutput struct {
			UpdatedToolOutput claudeReadOutput `json:"updatedToolOutput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &reply); err != nil {
		t.Fatalf("hook output %s: %v", out, err)
	}
	got := reply.HookSpecificOutput.UpdatedToolOutput.File.Content
	if why := judgeReplacement(v, got, text, clientLines(text)); why != "" {
		t.Fatalf("Read of %s (%s) answered %q: %s", name, resp.File["content"], got, why)
	}
	if diffAnswer(got) {
		w.given(v, text, 1, 0, true, false)
	}
}

func (w *hookWorld) view(name string) *modelView {
	v := w.views[name]
	if v == nil {
		v = &modelView{lines: map[int]heldLine{}}
		w.views[name] = v
	}
	return v
}

// given records that the model was given text: lines from start of a file
// of total lines (the empty one Claude Code numbers after a last newline is
// no line), or the whole file, or something cut short.
func (w *hookWorld) given(v *modelView, text string, start, total int, whole, cut bool) {
	switch {
	case cut:
		*v = modelView{lines: map[int]heldLine{}}
	case whole:
		*v = modelView{lines: map[int]heldLine{}, text: text, hasText: true}
		for i, l := range clientLines(text) {
			v.lines[i+1] = heldLine{text: l}
		}
	default:
		v.hasText = false
		for i, l := range strings.Split(text, "\n") {
			if start+i <= total {
				v.lines[start+i] = heldLine{text: l}
			}
		}
		for i := range v.lines {
			if i > total {
				delete(v.lines, i) // Read told the model the file has total lines
			}
		}
	}
}

func diffAnswer(s string) bool {
	return strings.Contains(strings.SplitN(s, "\n", 2)[0], " changed since you last read it")
}

var (
	wholeNoteRe = regexp.MustCompile(`^\[unchanged: \S+, all (\d+) lines as you last read them\]$`)
	rangeNoteRe = regexp.MustCompile(`^\[unchanged: \S+ lines? (\d+)(?:-(\d+))?, as you last read them`)
)

// judgeReplacement says what is wrong with a replacement for Read's text
// (the file's text now, lines now), given what the model holds in v.
func judgeReplacement(v *modelView, got, text string, now []string) string {
	switch {
	case wholeNoteRe.MatchString(got):
		if n, _ := strconv.Atoi(wholeNoteRe.FindStringSubmatch(got)[1]); n != len(now) {
			return fmt.Sprintf("the note says %d lines, the file has %d", n, len(now))
		}
		for i := 1; i <= max(len(now), len(v.lines)); i++ {
			h, ok := v.lines[i]
			if i > len(now) {
				if ok {
					return fmt.Sprintf("the model holds a line %d the file does not have", i)
				}
				continue
			}
			if !ok || h.text != now[i-1] || h.edited {
				return fmt.Sprintf("line %d is %q, the model holds %+v", i, now[i-1], h)
			}
		}
	case rangeNoteRe.MatchString(got):
		m := rangeNoteRe.FindStringSubmatch(got)
		a, _ := strconv.Atoi(m[1])
		b := a
		if m[2] != "" {
			b, _ = strconv.Atoi(m[2])
		}
		for i := a; i <= b; i++ {
			if h, ok := v.lines[i]; i > len(now) || !ok || h.text != now[i-1] || h.edited {
				return fmt.Sprintf("line %d is not what the model holds", i)
			}
		}
	case diffAnswer(got):
		if !v.hasText {
			return "a diff against a file the model was not given whole"
		}
		_, d, _ := strings.Cut(got, "\n")
		after, err := testdiff.Apply(d, v.text)
		if err != nil || after != text {
			return fmt.Sprintf("the diff does not turn what the model was given into the file (%v)", err)
		}
	default:
		return "not a note nor a diff"
	}
	return ""
}

// edit is the model's own Edit or Write: the file becomes what the model
// made it, and the model believes that, not what it was shown.
func (w *hookWorld) edit(t *rapid.T) {
	name := rapid.SampledFrom(hookFiles).Draw(t, "file")
	w.write(name, w.content(t, "edit"))
	tool := rapid.SampledFrom(claudeEdits).Draw(t, "tool")
	in, _ := json.Marshal(map[string]any{"file_path": w.path(name)})
	if _, err := Hook(w.ctx, ClaudeCodeAgent, &HookInput{Event: "PostToolUse", SessionID: "c1", ToolName: tool, ToolInput: in},
		HookServices{ReadCache: w.rc}); err != nil {
		t.Fatalf("hook: %v", err)
	}
	v := w.view(name)
	for i, l := range v.lines {
		v.lines[i] = heldLine{text: l.text, edited: true}
	}
}

// compact is Claude Code compacting the conversation.
func (w *hookWorld) compact(t *rapid.T) {
	if _, err := Hook(w.ctx, ClaudeCodeAgent, &HookInput{Event: "SessionStart", Source: "compact", SessionID: "c1"},
		HookServices{ReadCache: w.rc}); err != nil {
		t.Fatalf("hook: %v", err)
	}
	w.views = map[string]*modelView{}
}

func hookModel(t *rapid.T) {
	dir, err := os.MkdirTemp("", "hookmodel")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(context.Background(), filepath.Join(dir, ".freshctx", "freshctx.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws, err := workspace.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	w := &hookWorld{t: t, ctx: context.Background(), dir: dir, views: map[string]*modelView{},
		rc: &readcache.Service{WS: ws, Store: st, Cwd: dir}}
	for _, name := range hookFiles {
		w.write(name, w.content(t, "initial"))
	}
	t.Repeat(map[string]func(*rapid.T){
		"read":    w.read,
		"write":   w.userWrite,
		"edit":    w.edit,
		"compact": w.compact,
		"":        func(*rapid.T) {},
	})
}

// TestHookModel runs the model-based test of the hook path.
func TestHookModel(t *testing.T) {
	testrace.Skip(t, "steps the hooks through a model on one goroutine")
	rapid.Check(t, hookModel)
}

// TestHookModelCatchesAKeptPicture is the mutation check of the model:
// with a delivery the hook cannot match leaving the older picture in place
// (the bug it was written for), the model-based test must fail.
func TestHookModelCatchesAKeptPicture(t *testing.T) {
	if testing.Short() {
		t.Skip("a mutation check of the model; runs without -short")
	}
	keep := func(*readcache.Service, context.Context, string, string) error { return nil }
	defer func(f func(*readcache.Service, context.Context, string, string) error) { forgetUnmatched = f }(forgetUnmatched)
	forgetUnmatched = keep
	// A failure is all this test wants: no time shrinking it (30 s by
	// default), and no fail file left to replay.
	for name, value := range map[string]string{"rapid.shrinktime": "100ms", "rapid.nofailfile": "true"} {
		old := flag.Lookup(name).Value.String()
		if err := flag.Set(name, value); err != nil {
			t.Fatal(err)
		}
		defer flag.Set(name, old)
	}
	rec := &failRecorder{TB: t}
	for range 10 {
		if rapid.Check(rec, hookModel); rec.failed {
			break
		}
	}
	if !rec.failed {
		t.Fatal("the model-based test passed with a kept picture")
	}
}

// failRecorder is a rapid.TB that records a failure instead of failing.
type failRecorder struct {
	rapid.TB
	failed bool
}

func (r *failRecorder) Fatalf(string, ...any) { r.failed = true }
func (r *failRecorder) Fatal(...any)          { r.failed = true }
func (r *failRecorder) Errorf(string, ...any) { r.failed = true }
func (r *failRecorder) Error(...any)          { r.failed = true }
func (r *failRecorder) FailNow()              { r.failed = true }
func (r *failRecorder) Fail()                 { r.failed = true }
func (r *failRecorder) Failed() bool          { return r.failed }
