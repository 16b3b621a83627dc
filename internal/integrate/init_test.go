package integrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// Nothing of the user's is lost or altered by init: each test is a case
// where it once was.

// TestInitKeepsEveryByte: numbers past float64, numbers in exponent form
// and the user's own layout stay byte for byte; a key that is there twice
// elsewhere stays twice.
func TestInitKeepsEveryByte(t *testing.T) {
	root := t.TempDir()
	old := "{\n    \"big\": 9007199254740993,\n    \"bigger\": 12345678901234567890,\n    \"exp\": 1e2,\n" +
		"    \"twice\": 1, \"twice\": 2,\n    \"hooks\": {\n        \"PreToolUse\": [ {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"guard.sh\"}]} ]\n    }\n}\n"
	write(t, filepath.Join(root, ".claude", "settings.json"), old)
	changes, err := ClaudeCode(root, testRunCommands)
	if err != nil {
		t.Fatal(err)
	}
	got := changes[1].Content
	for _, kept := range []string{"9007199254740993", "12345678901234567890", "1e2", `"twice": 1, "twice": 2`, `"command": "guard.sh"`} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q lost:\n%s", kept, got)
		}
	}
	if !isSubsequence(old, got) {
		t.Fatalf("bytes of the user's file are gone:\n%s", got)
	}
	if !json.Valid([]byte(got)) || !strings.Contains(got, "freshctx hook claude-code") {
		t.Fatalf("merged file:\n%s", got)
	}
}

// TestInitRefusesAKeyTwice: the first of two "hooks" blocks was silently
// dropped (decoding keeps the last); an event key twice the same. init
// says so and writes nothing.
func TestInitRefusesAKeyTwice(t *testing.T) {
	for name, text := range map[string]string{
		"hooks twice":    `{"hooks": {"Stop": []}, "hooks": {"PreToolUse": []}}`,
		"an event twice": `{"hooks": {"PreToolUse": [], "PreToolUse": []}}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "hooks.json"), text)
			if _, err := Codex(dir); err == nil || !strings.Contains(err.Error(), "times") {
				t.Fatalf("init of a file with a key twice: %v", err)
			}
		})
	}
	root := t.TempDir()
	write(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {}, "mcpServers": {"x": {}}}`)
	if _, err := ClaudeCode(root, testRunCommands); err == nil {
		t.Fatal("init of a .mcp.json with mcpServers twice went on")
	}
}

// TestApplyIsAllOrNone: with settings.json read-only, .mcp.json had already
// been rewritten. Now no file is.
func TestApplyIsAllOrNone(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {}}`)
	settings := filepath.Join(root, ".claude", "settings.json")
	write(t, settings, `{}`)
	if err := os.Chmod(settings, 0o444); err != nil {
		t.Fatal(err)
	}
	changes, err := ClaudeCode(root, testRunCommands)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(changes); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("Apply = %v, want the read-only file named", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, ".mcp.json")); string(b) != `{"mcpServers": {}}` {
		t.Fatalf(".mcp.json was written: %s", b)
	}
	if _, err := os.Stat(filepath.Join(root, "CLAUDE.md")); err == nil {
		t.Fatal("CLAUDE.md was written")
	}
	noTemps(t, root)
}

// TestApplyOnAFullDiskLeavesTheOldFile: the write used to truncate, then
// write, leaving 4,096 bytes of invalid JSON when the disk filled (or the
// process was killed) in between. Now the old file stays whole.
func TestApplyOnAFullDiskLeavesTheOldFile(t *testing.T) {
	root := t.TempDir()
	settings := filepath.Join(root, ".claude", "settings.json")
	old := `{"permissions": {"allow": ["Bash(go test:*)"]}}`
	write(t, settings, old)
	defer func(w func(*os.File, []byte) error) { writeTemp = w }(writeTemp)
	writeTemp = func(f *os.File, b []byte) error {
		f.Write(b[:len(b)/2])
		return errors.New("no space left on device")
	}
	changes, err := ClaudeCode(root, testRunCommands)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(changes); err == nil {
		t.Fatal("Apply on a full disk succeeded")
	}
	if b, _ := os.ReadFile(settings); string(b) != old {
		t.Fatalf("settings.json after a failed write: %s", b)
	}
	noTemps(t, root)
}

// TestApplyThroughASymlinkKeepsLinkModeAndOwner: a settings file that is a
// link into a dotfiles folder stays a link, its target is replaced, and
// the target keeps its mode.
func TestApplyThroughASymlinkKeepsLinkModeAndOwner(t *testing.T) {
	root, dotfiles := t.TempDir(), t.TempDir()
	target := filepath.Join(dotfiles, "settings.json")
	write(t, target, `{"model": "x"}`)
	if err := os.Chmod(target, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	changes, err := ClaudeCode(root, testRunCommands)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(changes); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link is gone: %v %v", fi, err)
	}
	fi, err := os.Stat(target)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("target mode %v (%v), want 0600", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(target); !strings.Contains(string(b), "freshctx hook claude-code") || !strings.Contains(string(b), `"model": "x"`) {
		t.Fatalf("target: %s", b)
	}
	noTemps(t, dotfiles)
}

func noTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".freshctx-") {
			t.Errorf("a temporary file was left: %s", p)
		}
		return nil
	})
}

// isSubsequence reports whether every byte of a is in b, in order.
func isSubsequence(a, b string) bool {
	i := 0
	for j := 0; i < len(a) && j < len(b); j++ {
		if a[i] == b[j] {
			i++
		}
	}
	return i == len(a)
}

// TestInitChangesNothingButItsOwn: for any JSON object (keys that repeat,
// numbers of any size and form, "hooks" and "mcpServers" of any shape),
// merging freshctx's hooks and server either refuses with a reason or
// gives valid JSON that holds every byte of the file in order and, less
// freshctx's own entries, means what the file meant.
func TestInitChangesNothingButItsOwn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc := drawObject(t, 0)
		dir, err := os.MkdirTemp("", "init")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "f.json")
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		for name, merge := range map[string]func() (Change, error){
			"hooks": func() (Change, error) {
				return mergeHooks(path, ClaudeCodeAgent, claudeEvents, bashFilter(testRunCommands))
			},
			"servers": func() (Change, error) { return mcpServers(path) },
		} {
			c, err := merge()
			if err != nil {
				if !strings.Contains(err.Error(), "times") && !strings.Contains(err.Error(), "not a") {
					t.Fatalf("%s: refused without a reason: %v", name, err)
				}
				continue
			}
			if !json.Valid([]byte(c.Content)) {
				t.Fatalf("%s: not JSON:\n%s", name, c.Content)
			}
			if !isSubsequence(doc, c.Content) {
				t.Fatalf("%s: bytes of the file lost:\n%s\n→\n%s", name, doc, c.Content)
			}
			if !keptIn(decodeNumbers(doc), decodeNumbers(c.Content)) {
				t.Fatalf("%s: the file means something else:\n%s\n→\n%s", name, doc, c.Content)
			}
		}
	})
}

// drawObject draws a JSON object as text, in the shapes configuration
// files take.
func drawObject(t *rapid.T, depth int) string {
	n := rapid.IntRange(0, 4).Draw(t, "members")
	ws := rapid.SampledFrom([]string{"", " ", "\n  ", "\n\t"}).Draw(t, "space")
	var parts []string
	for range n {
		key := rapid.SampledFrom([]string{"hooks", "mcpServers", "PreToolUse", "SessionStart", "freshctx", "model", "x", "matcher"}).Draw(t, "key")
		parts = append(parts, ws+fmt.Sprintf("%q", key)+": "+drawValue(t, depth+1))
	}
	return "{" + strings.Join(parts, ",") + ws + "}"
}

func drawValue(t *rapid.T, depth int) string {
	kinds := []string{"number", "string", "bool", "null"}
	if depth < 3 {
		kinds = append(kinds, "object", "array", "array")
	}
	switch rapid.SampledFrom(kinds).Draw(t, "kind") {
	case "number":
		return rapid.SampledFrom([]string{"0", "-1", "9007199254740993", "12345678901234567890", "1e2", "1.50", "-0.0", "3E-7"}).Draw(t, "n")
	case "string":
		return rapid.SampledFrom([]string{`""`, `"freshctx hook claude-code"`, `"Bash"`, `"\u00e9\n"`}).Draw(t, "s")
	case "bool":
		return "true"
	case "null":
		return "null"
	case "object":
		return drawObject(t, depth)
	}
	m := rapid.IntRange(0, 3).Draw(t, "elements")
	var els []string
	for range m {
		els = append(els, drawValue(t, depth+1))
	}
	return "[" + strings.Join(els, ", ") + "]"
}

// decodeNumbers decodes a document, numbers as written.
func decodeNumbers(doc string) any {
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// keptIn says whether after holds all of before, and all it adds is
// freshctx's own: a key among those init adds, an array element that is a
// hook group running freshctx.
func keptIn(before, after any) bool {
	switch b := before.(type) {
	case map[string]any:
		a, ok := after.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range b {
			if !keptIn(v, a[k]) {
				return false
			}
		}
		for k, v := range a {
			if _, had := b[k]; !had && !addedByInit(k, v) {
				return false
			}
		}
		return true
	case []any:
		a, ok := after.([]any)
		if !ok || len(a) < len(b) {
			return false
		}
		for i := range b {
			if !keptIn(b[i], a[i]) {
				return false
			}
		}
		for _, x := range a[len(b):] {
			if !runsFreshctx(x) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(before, after)
}

// addedByInit says whether a key and its value are what init adds.
func addedByInit(key string, v any) bool {
	switch key {
	case "freshctx":
		b, _ := json.Marshal(v)
		s, _ := json.Marshal(server())
		return bytes.Equal(b, s)
	case "hooks", "mcpServers":
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for k, x := range m {
			if !addedByInit(k, x) {
				return false
			}
		}
		return true
	}
	groups, ok := v.([]any) // an event of freshctx's hooks
	if !ok {
		return false
	}
	for _, g := range groups {
		if !runsFreshctx(g) {
			return false
		}
	}
	return true
}

func runsFreshctx(group any) bool {
	b, _ := json.Marshal(group)
	return bytes.Contains(b, []byte(`"command":"freshctx hook claude-code"`))
}

// TestInitReplacesOnlyAWellFormedNote: a stray begin marker made the
// second init delete the user's text after it; an end marker before the
// begin made every init append another block. Only one pair, in order, is
// replaced; anything else is kept and said.
func TestInitReplacesOnlyAWellFormedNote(t *testing.T) {
	for name, text := range map[string]string{
		"a stray begin":          "# mine\n" + noteBegin + "\nmy own words after it\n",
		"end before begin":       "# mine\n" + noteEnd + "\nwords\n" + noteBegin + "\n",
		"two blocks":             Note + "\nmine\n" + Note,
		"a stray begin and ours": "# mine\n" + noteBegin + "\nmy own words\n\n" + Note,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "CLAUDE.md")
			write(t, path, text)
			c, err := claudeNote(path)
			if err != nil {
				t.Fatal(err)
			}
			if c.Content != text || !strings.HasPrefix(c.Action, "kept:") {
				t.Fatalf("action %q, content:\n%s", c.Action, c.Content)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "CLAUDE.md")
	write(t, path, "# mine\n\n"+strings.Replace(Note, "Run tests", "Run old tests", 1)+"after\n")
	c, err := claudeNote(path)
	if err != nil || c.Content != "# mine\n\n"+Note+"after\n" {
		t.Fatalf("a well-formed block is replaced in place: %v\n%s", err, c.Content)
	}
}

// TestAnEditThatWouldNotParseIsRefused: the last guard before a JSON file
// is written: content that does not parse is never a change to apply.
func TestAnEditThatWouldNotParseIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	for _, c := range []struct {
		content string
		ok      bool
	}{{`{"a": 1}`, true}, {`{"a": 1,}`, false}, {`{"a": 1}{`, false}, {"", false}} {
		_, err := jsonChange(path, []byte(c.content), false)
		if (err == nil) != c.ok {
			t.Errorf("%q: err = %v", c.content, err)
		}
	}
}
