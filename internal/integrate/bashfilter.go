package integrate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Most lines an agent runs in Bash (ls, cat, grep, git) are not tests or
// builds, and its PreToolUse hook answers them with nothing; yet each one
// starts a freshctx process, the whole cost of a call for no answer.
// Claude Code (2.1.85 and later) starts a hook handler only when the tool
// call matches the handler's "if", a permission rule; from 2.1.89 a Bash
// rule matches any one command of a compound line (`cd x && go test`,
// `FOO=1 go test`). So init gives the Bash group one handler per first
// word of hooks.run_commands, each with the rule `Bash(WORD*)`, and a line
// none of those words starts a command of starts no freshctx at all.
//
// The rules are wider than the routing, never narrower: `Bash(go*)` also
// starts the hook for `go mod tidy` and `gofmt`, which it then declines,
// and every line routedLine would rewrite holds a command starting with
// a routed prefix, which starts with its first word. A line that starts
// two words' handlers (`make && go test`) starts two hooks, which give the
// same answer. A Claude Code that does not know "if" runs every handler,
// as before it; one between 2.1.85 and 2.1.89 misses compound lines, which
// then run as written. Missing a line costs its routing, never an answer.

// BashRules are the "if" rules of the Bash hook's handlers for these run
// command prefixes, one per distinct first word, a word that another
// covers left out (`python*` covers `python3`). ok is false when a word
// cannot be written in a rule (it holds a parenthesis, a star or a
// backslash): the hook then gets one handler with no rule, started for
// every line. No prefixes, no rules: nothing is routed, and the Bash hook
// is not installed.
func BashRules(prefixes []string) (rules []string, ok bool) {
	var words []string
	for _, p := range prefixes {
		f := strings.Fields(p)
		if len(f) == 0 {
			continue
		}
		if strings.ContainsAny(f[0], `()*\`) {
			return nil, false
		}
		words = append(words, f[0])
	}
	slices.Sort(words)
	words = slices.Compact(words)
	for _, w := range words {
		if !slices.ContainsFunc(rules, func(r string) bool { return strings.HasPrefix(w, ruleWord(r)) }) {
			rules = append(rules, "Bash("+w+"*)")
		}
	}
	return rules, true
}

// ruleWord is the word a rule of BashRules is for.
func ruleWord(rule string) string {
	return strings.TrimSuffix(strings.TrimPrefix(rule, "Bash("), "*)")
}

// hookFilter gives the rules ("if") of the handlers init puts in an
// event's group: none for one handler without a rule, the event skipped
// when skip is true.
type hookFilter func(hookEvent) (rules []string, skip bool)

// noFilter is every event's one handler without a rule.
func noFilter(hookEvent) ([]string, bool) { return nil, false }

// bashFilter filters the PreToolUse Bash group by BashRules(prefixes).
func bashFilter(prefixes []string) hookFilter {
	rules, ok := BashRules(prefixes)
	return func(e hookEvent) ([]string, bool) {
		if e != (hookEvent{"PreToolUse", "Bash"}) || !ok {
			return nil, false
		}
		return rules, len(rules) == 0
	}
}

// handlers are the hook entries of a group init writes: one running
// command, or one per rule, each started only for the calls its rule
// matches.
func handlers(command string, rules []string) []any {
	if len(rules) == 0 {
		return []any{map[string]any{"type": "command", "command": command}}
	}
	out := make([]any, len(rules))
	for i, r := range rules {
		out[i] = map[string]any{"type": "command", "command": command, "if": r}
	}
	return out
}

// ownHandler reports whether a decoded hook entry is one init writes for
// one of commands (handlers), and its command and rule ("" for none): only
// those may init replace when the handlers it would write are others.
func ownHandler(h map[string]any, commands []string) (command, rule string, ok bool) {
	command, _ = h["command"].(string)
	if h["type"] != "command" || !slices.Contains(commands, command) {
		return "", "", false
	}
	switch len(h) {
	case 2:
		return command, "", true
	case 3:
		rule, ok = h["if"].(string)
		return command, rule, ok && rule != ""
	}
	return "", "", false
}

// refilter takes freshctx's own handlers (ownHandler) out of the group of
// each event whose handlers are not, or no longer, those init writes now:
// other rules than filter gives (an install from before the rules,
// hooks.run_commands changed since), or another of the agent's own
// commands (Codex's Bash group from before its prefilter), so that the
// merge adds them as they are now. Groups of that matcher only are looked
// at; one that runs the hook in another form (the user's own, or a group
// of every tool) leaves the event as it is, as the merge then does.
func refilter(doc []byte, path string, agent Agent, events []hookEvent, filter hookFilter) ([]byte, error) {
	for _, e := range events {
		rules, skip := filter(e)
		have, commands, foreign, err := ownRules(doc, path, agent, e)
		if err != nil {
			return nil, err
		}
		command := agent.eventCommand(e)
		others := slices.ContainsFunc(commands, func(c string) bool { return c != command })
		if foreign || (rules == nil && !skip && !others) {
			continue // one handler without a rule, as written now: the merge's own check
		}
		want := slices.Sorted(slices.Values(rules))
		if skip {
			want = nil
		}
		if !others && slices.Equal(have, want) {
			continue
		}
		for {
			next, cut, err := cutOneHook(doc, path, func(event, matcher string, h map[string]any) bool {
				_, _, own := ownHandler(h, agent.ownCommands())
				return own && event == e.event && matcher == e.matcher
			})
			if err != nil {
				return nil, err
			}
			if !cut {
				break
			}
			doc = next
		}
	}
	return doc, nil
}

// ownRules are the rules of freshctx's own handlers in the groups of e's
// event and matcher, sorted ("" for a handler without one), and the
// commands they run; foreign says the hook runs there in a form init does
// not write, or from a group of every tool.
func ownRules(doc []byte, path string, agent Agent, e hookEvent) (rules, commands []string, foreign bool, err error) {
	var file struct {
		Hooks map[string][]struct {
			Matcher *string          `json:"matcher"`
			Hooks   []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(doc, &file); err != nil {
		// The merge says what is wrong with it, where.
		return nil, nil, true, nil
	}
	for _, g := range file.Hooks[e.event] {
		matcher := ""
		if g.Matcher != nil {
			matcher = *g.Matcher
		}
		for _, h := range g.Hooks {
			cmd, _ := h["command"].(string)
			if !strings.Contains(cmd, agent.HookCommand()) {
				continue
			}
			command, rule, own := ownHandler(h, agent.ownCommands())
			switch {
			case matcher != e.matcher && (matcher == "" || matcher == "*"):
				return nil, nil, true, nil // a group of every tool runs it
			case matcher != e.matcher:
				continue
			case !own:
				return nil, nil, true, nil
			}
			rules = append(rules, rule)
			commands = append(commands, command)
		}
	}
	slices.Sort(rules)
	return rules, commands, false, nil
}

// ClaudeSettingsFiles are the Claude Code settings files init writes
// hooks to: the project's and the user's.
func ClaudeSettingsFiles(root, home string) []string {
	return []string{filepath.Join(root, ".claude", "settings.json"), filepath.Join(home, ".claude", "settings.json")}
}

// UncoveredBashWords are the first words of prefixes that the rules of
// freshctx's Bash handlers in the Claude Code settings file at path do
// not cover: lines starting those commands would never reach the hook.
// None when the file is not there or holds no such rules (no Bash hook, or
// one started for every line).
func UncoveredBashWords(path string, prefixes []string) []string {
	doc, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	have, _, foreign, _ := ownRules(doc, path, ClaudeCodeAgent, hookEvent{"PreToolUse", "Bash"})
	if foreign || len(have) == 0 || slices.Contains(have, "") {
		return nil
	}
	var out []string
	for _, p := range prefixes {
		f := strings.Fields(p)
		if len(f) == 0 || slices.Contains(out, f[0]) {
			continue
		}
		if !slices.ContainsFunc(have, func(r string) bool { return strings.HasPrefix(f[0], ruleWord(r)) }) {
			out = append(out, f[0])
		}
	}
	return out
}
