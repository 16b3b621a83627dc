package integrate

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// routeBash answers PreToolUse for the agent's Bash: each test or build
// command of the line (one that starts with a prefix of the setting
// hooks.run_commands) is run through `freshctx run --`, so its whole output
// is kept and the model gets the digest and the footer naming the record.
// The line stays the agent's own and runs in the agent's shell as written:
// only those commands are prefixed, so a cd, an export or an assignment
// elsewhere on the line acts on the agent's shell as it would have, and
// freshctx run exits with the command's status, so && and || decide as
// they would have (routedLine says which commands qualify). Everything else
// the tool was asked is passed on unchanged. The user's permission rules
// keep their meaning (permit).
func routeBash(agent Agent, h *HookInput, svc HookServices) (string, error) {
	var input map[string]any
	if err := json.Unmarshal(h.ToolInput, &input); err != nil {
		return "", nil
	}
	line, _ := input["command"].(string)
	self := "freshctx"
	if svc.Self != "" {
		self = shellQuote(svc.Self)
	}
	rewritten, ok := routedLine(line, svc.RunCommands, self)
	if !ok {
		return "", nil
	}
	// The rules are judged on freshctx by name: a rule names the command
	// (Bash(freshctx:*)), not the path the hook runs it by.
	named, _ := routedLine(line, svc.RunCommands, "freshctx")
	decision, ok := svc.permit(agent, h, line, named)
	if !ok {
		return "", nil
	}
	input["command"] = rewritten
	out := map[string]any{"hookEventName": "PreToolUse", "updatedInput": input}
	if decision != "" {
		out["permissionDecision"] = decision
	}
	return answerJSON(map[string]any{"hookSpecificOutput": out})
}

// Routes reports whether a PreToolUse of Bash would be routed through
// freshctx run with these prefixes: a hook that finds it would not can
// answer nothing without opening the store.
func Routes(h *HookInput, prefixes []string) bool {
	var input struct {
		Command string `json:"command"`
	}
	if h.Event != "PreToolUse" || h.ToolName != "Bash" || json.Unmarshal(h.ToolInput, &input) != nil {
		return false
	}
	_, ok := routedLine(input.Command, prefixes, "freshctx")
	return ok
}

// routedLine returns line with `self run -- ` put before each command that
// starts with one of prefixes, and whether there was one. A command is
// routed only where that changes nothing but its output, which reaches the
// agent either way: it is a simple command of the line's own list or of an
// && / || chain in it (not inside a pipe, a subshell, a group, a loop, a
// condition or a substitution, whose output or effect another command
// consumes), with no redirection but 2>&1, not in the background, and
// named by plain words. Variable assignments before it stay before it, and
// reach the command through freshctx run's environment. A line that does
// not parse as bash is left alone.
func routedLine(line string, prefixes []string, self string) (string, bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return "", false
	}
	var at []int // byte offsets to put the prefix before
	var walk func(s *syntax.Stmt)
	walk = func(s *syntax.Stmt) {
		if s.Background || s.Coprocess || s.Disown {
			return
		}
		switch c := s.Cmd.(type) {
		case *syntax.BinaryCmd:
			if len(s.Redirs) == 0 && (c.Op == syntax.AndStmt || c.Op == syntax.OrStmt) {
				walk(c.X)
				walk(c.Y)
			}
		case *syntax.CallExpr:
			if onlyMergesStderr(s.Redirs) && len(c.Args) > 0 && startsWith(c.Args, prefixes) {
				at = append(at, int(c.Args[0].Pos().Offset()))
			}
		}
	}
	for _, s := range f.Stmts {
		walk(s)
	}
	if len(at) == 0 {
		return "", false
	}
	sort.Ints(at)
	var b strings.Builder
	prev := 0
	for _, i := range at {
		b.WriteString(line[prev:i])
		b.WriteString(self + " run -- ")
		prev = i
	}
	b.WriteString(line[prev:])
	return b.String(), true
}

// onlyMergesStderr reports whether redirections are none or 2>&1, which
// sends what freshctx run keeps anyway where it would have gone.
func onlyMergesStderr(rs []*syntax.Redirect) bool {
	for _, r := range rs {
		if r.Op != syntax.DplOut || r.N == nil || r.N.Value != "2" || r.Word == nil || r.Word.Lit() != "1" {
			return false
		}
	}
	return true
}

// startsWith reports whether the command's leading words, each a plain
// literal, are one of prefixes word for word. freshctx itself is never
// routed again.
func startsWith(args []*syntax.Word, prefixes []string) bool {
	var words []string
	for _, a := range args {
		lit := a.Lit()
		if lit == "" {
			break // quoted, expanded or substituted: not a plain word
		}
		words = append(words, lit)
	}
	if len(words) == 0 || words[0] == "freshctx" {
		return false
	}
	for _, p := range prefixes {
		want := strings.Fields(p)
		if len(want) > 0 && len(want) <= len(words) && slices.Equal(words[:len(want)], want) {
			return true
		}
	}
	return false
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
