package integrate

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/config"
)

// testRunCommands are the run commands the init tests install with.
var testRunCommands = []string{"go test", "go build", "make", "npm run test"}

func TestBashRules(t *testing.T) {
	for _, c := range []struct {
		name     string
		prefixes []string
		rules    []string
		ok       bool
	}{
		{"one word per rule", []string{"go test", "go vet", "make"}, []string{"Bash(go*)", "Bash(make*)"}, true},
		{"a word another covers", []string{"python -m pytest", "python3 -m pytest", "pytest"},
			[]string{"Bash(pytest*)", "Bash(python*)"}, true},
		{"a path", []string{"./gradlew"}, []string{"Bash(./gradlew*)"}, true},
		{"none: nothing is routed", nil, nil, true},
		{"blank prefixes", []string{" ", ""}, nil, true},
		{"a word a rule cannot hold", []string{"go test", "run(x)"}, nil, false},
		{"a star", []string{"a*b"}, nil, false},
		{"a backslash", []string{`a\b test`}, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rules, ok := BashRules(c.prefixes)
			if ok != c.ok || !slices.Equal(rules, c.rules) {
				t.Fatalf("BashRules(%q) = %q, %v; want %q, %v", c.prefixes, rules, ok, c.rules, c.ok)
			}
		})
	}
}

// TestBashRulesCoverEveryRoutedCommand: every command of a line the hook
// would route starts with the word of one of the rules: an agent that
// starts the hook by the rules starts it for every line it would route.
func TestBashRulesCoverEveryRoutedCommand(t *testing.T) {
	words := []string{"go", "gofmt", "make", "python", "python3", "npm", "ls", "FOO=1", "-m", "pytest", "test", "run", "./x"}
	seps := []string{" && ", " || ", "; ", " | ", "\n", " 2>&1 && ", " & "}
	rapid.Check(t, func(t *rapid.T) {
		var prefixes []string
		for range rapid.IntRange(0, 4).Draw(t, "prefixes") {
			n := rapid.IntRange(1, 3).Draw(t, "words")
			var p []string
			for range n {
				p = append(p, rapid.SampledFrom(words).Draw(t, "word"))
			}
			prefixes = append(prefixes, strings.Join(p, " "))
		}
		var line strings.Builder
		for i := range rapid.IntRange(1, 4).Draw(t, "commands") {
			if i > 0 {
				line.WriteString(rapid.SampledFrom(seps).Draw(t, "sep"))
			}
			for j := range rapid.IntRange(1, 4).Draw(t, "args") {
				if j > 0 {
					line.WriteString(" ")
				}
				line.WriteString(rapid.SampledFrom(words).Draw(t, "arg"))
			}
		}
		rules, ok := BashRules(prefixes)
		if !ok {
			t.Fatalf("BashRules(%q) refused plain words", prefixes)
		}
		const mark = "\x00MARK run -- "
		routed, was := routedLine(line.String(), prefixes, "\x00MARK")
		if !was {
			return
		}
		for _, after := range strings.Split(routed, mark)[1:] {
			if !slices.ContainsFunc(rules, func(r string) bool { return strings.HasPrefix(after, ruleWord(r)) }) {
				t.Fatalf("line %q routes %q, which no rule of %q starts", line.String(), after, rules)
			}
		}
	})
}

// bashHandlers are the hook entries of the PreToolUse groups of matcher
// Bash in a settings file.
func bashHandlers(t *testing.T, path string) []map[string]any {
	return hookHandlers(t, path)["PreToolUse Bash"]
}

// hookHandlers are the hook entries of a settings or hooks.json file by
// event and matcher ("PreToolUse Bash"; the event alone for a group
// without a matcher), in the file's order.
func hookHandlers(t *testing.T, path string) map[string][]map[string]any {
	t.Helper()
	var file struct {
		Hooks map[string][]struct {
			Matcher string           `json:"matcher"`
			Hooks   []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	out := map[string][]map[string]any{}
	for event, groups := range file.Hooks {
		for _, g := range groups {
			key := strings.TrimSpace(event + " " + g.Matcher)
			out[key] = append(out[key], g.Hooks...)
		}
	}
	return out
}

// freshctxRules are the rules of freshctx's handlers among hs, sorted.
func freshctxRules(hs []map[string]any) []string {
	var out []string
	for _, h := range hs {
		if h["command"] == ClaudeCodeAgent.HookCommand() {
			r, _ := h["if"].(string)
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

func initClaude(t *testing.T, root string, prefixes []string) []Change {
	t.Helper()
	changes, err := ClaudeCode(root, prefixes)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(changes); err != nil {
		t.Fatal(err)
	}
	return changes
}

// TestInitFiltersTheBashHook: init gives the Bash group one handler per
// rule; run again it changes nothing; with other run commands it puts the
// new rules in place of its own handlers, leaving the user's own hooks of
// the group as they were; with none it takes the Bash hook out.
func TestInitFiltersTheBashHook(t *testing.T) {
	root := t.TempDir()
	settings := filepath.Join(root, ".claude", "settings.json")
	guard := `{"type": "command", "command": "guard.sh"}`
	write(t, settings, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [`+guard+`]}]}}`)

	initClaude(t, root, testRunCommands)
	if got, want := freshctxRules(bashHandlers(t, settings)), []string{"Bash(go*)", "Bash(make*)", "Bash(npm*)"}; !slices.Equal(got, want) {
		t.Fatalf("rules %q, want %q", got, want)
	}
	for _, c := range initClaude(t, root, testRunCommands) {
		if c.Action != "unchanged" {
			t.Fatalf("a second init: %s %s", c.Path, c.Action)
		}
	}

	initClaude(t, root, []string{"cargo test", "go test"})
	if got, want := freshctxRules(bashHandlers(t, settings)), []string{"Bash(cargo*)", "Bash(go*)"}; !slices.Equal(got, want) {
		t.Fatalf("after the run commands changed, rules %q, want %q", got, want)
	}
	b, _ := os.ReadFile(settings)
	if !strings.Contains(string(b), guard) {
		t.Fatalf("the user's own Bash hook changed:\n%s", b)
	}

	initClaude(t, root, nil)
	if got := freshctxRules(bashHandlers(t, settings)); len(got) != 0 {
		t.Fatalf("with no run commands, freshctx's Bash handlers %q are left", got)
	}
	if b, _ := os.ReadFile(settings); !strings.Contains(string(b), guard) || !strings.Contains(string(b), `"matcher": "Read"`) {
		t.Fatalf("taking the Bash hook out took more:\n%s", b)
	}
}

// TestInitUpgradesAnUnfilteredInstall: a Bash handler without a rule, as
// init wrote it before the rules, is replaced by the filtered ones; the
// other events' handlers stay as they are.
func TestInitUpgradesAnUnfilteredInstall(t *testing.T) {
	root := t.TempDir()
	settings := filepath.Join(root, ".claude", "settings.json")
	initClaude(t, root, []string{"go test"})
	b, _ := os.ReadFile(settings)
	old := strings.Replace(string(b), `"if": "Bash(go*)",`, "", 1)
	if old == string(b) {
		t.Fatalf("no rule to take out:\n%s", b)
	}
	write(t, settings, old)
	if got := freshctxRules(bashHandlers(t, settings)); !slices.Equal(got, []string{""}) {
		t.Fatalf("set-up: rules %q", got)
	}
	initClaude(t, root, []string{"go test"})
	if got := freshctxRules(bashHandlers(t, settings)); !slices.Equal(got, []string{"Bash(go*)"}) {
		t.Fatalf("after init, rules %q", got)
	}
	var n int
	var file map[string]map[string][]any
	b, _ = os.ReadFile(settings)
	json.Unmarshal(b, &file)
	for _, groups := range file["hooks"] {
		n += len(groups)
	}
	if n != len(claudeEvents) {
		t.Fatalf("%d groups, want %d:\n%s", n, len(claudeEvents), b)
	}
}

// TestInitLeavesAHookTheUserChanged: a freshctx Bash handler that is not
// as init writes it (a timeout added) is the user's: init leaves it and
// adds no other.
func TestInitLeavesAHookTheUserChanged(t *testing.T) {
	root := t.TempDir()
	settings := filepath.Join(root, ".claude", "settings.json")
	mine := `{"matcher": "Bash", "hooks": [{"type": "command", "command": "freshctx hook claude-code", "timeout": 30}]}`
	write(t, settings, `{"hooks": {"PreToolUse": [`+mine+`]}}`)
	initClaude(t, root, testRunCommands)
	b, _ := os.ReadFile(settings)
	if !strings.Contains(string(b), mine) || len(bashHandlers(t, settings)) != 1 {
		t.Fatalf("the user's freshctx hook was replaced or doubled:\n%s", b)
	}
}

// TestInitFallsBackToOneHandler: run commands whose words no rule can
// hold give the Bash hook one handler without a rule, started for every
// line, as before the rules.
func TestInitFallsBackToOneHandler(t *testing.T) {
	root := t.TempDir()
	settings := filepath.Join(root, ".claude", "settings.json")
	initClaude(t, root, []string{"go test", "weird(1)"})
	if got := freshctxRules(bashHandlers(t, settings)); !slices.Equal(got, []string{""}) {
		t.Fatalf("rules %q, want one handler without a rule", got)
	}
}

// TestPiReadsTheMirrorAsWritten: the pi extension goes by the mirror of
// hooks.run_commands beside the store, which it knows by its header.
func TestPiReadsTheMirrorAsWritten(t *testing.T) {
	header, _ := json.Marshal(config.MirrorHeader)
	if !strings.Contains(piExtension, "const MIRROR_HEADER = "+string(header)+";") {
		t.Fatalf("the pi extension's MIRROR_HEADER is not the mirror's header %s", header)
	}
}

// TestPiPrefilterCoversEveryRoutedLine: the pi extension starts no hook for
// a line where none of the run commands' first words starts a word
// (startsAWord, run by Node where it is installed): every line routedLine
// would route passes it, over 3,000 random lines and prefixes.
func TestPiPrefilterCoversEveryRoutedLine(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	start := strings.Index(piExtension, "function startsAWord(")
	if start < 0 {
		t.Fatal("the pi extension has no startsAWord")
	}
	end := start + strings.Index(piExtension[start:], "\n}\n") + 3
	fn := regexp.MustCompile(`:\s*(string|boolean)\b`).ReplaceAllString(piExtension[start:end], "")
	words := []string{"go", "gofmt", "make", "python", "python3", "npm", "ls", "FOO=1", "-m", "pytest", "test", "./x", "_go", "xgo"}
	seps := []string{" && ", " || ", "; ", " | ", "\n", " 2>&1 && ", " & ", "\t", " ! "}
	r := rand.New(rand.NewPCG(46, 1))
	type probe struct {
		Line  string   `json:"line"`
		Words []string `json:"words"`
	}
	var routed []probe
	for len(routed) < 3000 {
		prefixes, line := randomRouting(r, words, seps)
		if _, ok := routedLine(line, prefixes, "freshctx"); ok {
			var first []string
			for _, p := range prefixes {
				first = append(first, strings.Fields(p)[0])
			}
			routed = append(routed, probe{line, first})
		}
	}
	var passed []bool
	mapInNode(t, node, fn, `p=>p.words.some(w=>startsAWord(p.line,w))`, routed, &passed)
	for i, p := range routed {
		if !passed[i] {
			t.Fatalf("%q is routed, yet the extension would start no hook for it (words %q)", p.Line, p.Words)
		}
	}
}

// randomRouting is one to three run commands of one to three words and a
// line of one to four commands of one to four words, joined by seps: the
// lines the prefilters are held to the routing on.
func randomRouting(r *rand.Rand, words, seps []string) (prefixes []string, line string) {
	for range 1 + r.IntN(3) {
		p := []string{words[r.IntN(len(words))]}
		for range r.IntN(2) {
			p = append(p, words[r.IntN(len(words))])
		}
		prefixes = append(prefixes, strings.Join(p, " "))
	}
	var b strings.Builder
	for i := range 1 + r.IntN(4) {
		if i > 0 {
			b.WriteString(seps[r.IntN(len(seps))])
		}
		for j := range 1 + r.IntN(4) {
			if j > 0 {
				b.WriteString(" ")
			}
			b.WriteString(words[r.IntN(len(words))])
		}
	}
	return prefixes, b.String()
}
