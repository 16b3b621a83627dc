package integrate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The user's permission rules keep their meaning across a rewrite: a
// rewritten line is never allowed where the original would be asked about
// or denied, and never asked about where the original would be allowed.
// The agent judges the line it runs — the rewritten one — so the hook
// rewrites only where it can see that the agent would allow the original,
// and then says so (permissionDecision "allow"); everywhere else the line
// is left as the model wrote it, for the agent to judge.

// permit returns the permission decision to give with a rewrite of line,
// and whether the line may be rewritten at all.
func (svc HookServices) permit(agent Agent, h *HookInput, line, rewritten string) (string, bool) {
	if agent == PiAgent {
		return "", true // pi asks about no command: the rewrite runs as the line would
	}
	if agent == CodexAgent {
		// Codex applies a rewrite only with "allow", and its approval
		// policy and rules are not all in files the hook can read: only a
		// session that asks about nothing (codex exec, or a user who
		// bypassed approvals) is rewritten.
		return "allow", h.PermissionMode == "bypassPermissions"
	}
	rules := claudeRules(h, svc.claudeArgs())
	mode := rules.mode
	if mode == "" {
		mode = h.PermissionMode
	}
	if rules.decide(rewritten, mode) == decisionDeny {
		return "", false
	}
	if rules.decide(line, mode) != decisionAllow {
		return "", false
	}
	return "allow", true
}

type decision int

const (
	decisionAsk   decision = iota // no rule allows it: the user is asked
	decisionAllow                 // allowed without asking
	decisionDeny                  // refused
)

// claudePermissions are Claude Code's Bash rules from every place the hook
// can see: the managed, user, project and local settings and the command
// line Claude Code was started with.
type claudePermissions struct {
	allow, ask, deny []string // the specs inside Bash(...); "" is all of Bash
	mode             string   // --permission-mode, or bypassPermissions
}

// decide is Claude Code's judgement of a command line: every command in it
// must be allowed (by a rule or by bypassPermissions) and none denied or
// asked about. A line the hook cannot split into plain commands is asked
// about.
func (p claudePermissions) decide(line, mode string) decision {
	cmds, ok := commandsOf(line)
	if !ok {
		return decisionAsk
	}
	out := decisionAllow
	for _, c := range cmds {
		switch {
		case matchesAny(p.deny, c):
			return decisionDeny
		case matchesAny(p.ask, c):
			out = decisionAsk
		case matchesAny(p.allow, c), mode == "bypassPermissions":
		default:
			out = decisionAsk
		}
	}
	return out
}

// commandsOf splits a line into its simple commands as written, as Claude
// Code does to judge each; false when the line holds anything else that
// runs (a substitution, a function, a loop) or does not parse.
func commandsOf(line string) ([]string, bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, false
	}
	var cmds []string
	ok := true
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				cmds = append(cmds, line[n.Args[0].Pos().Offset():n.End().Offset()])
			}
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.FuncDecl, *syntax.ForClause, *syntax.WhileClause,
			*syntax.IfClause, *syntax.CaseClause, *syntax.ArithmCmd, *syntax.CoprocClause:
			ok = false
		}
		return ok
	})
	return cmds, ok && len(cmds) > 0
}

func matchesAny(specs []string, cmd string) bool {
	for _, s := range specs {
		if matchesRule(s, cmd) {
			return true
		}
	}
	return false
}

// matchesRule matches the spec of a Bash(...) rule: "" or "*" is every
// command, "PREFIX:*" a command that is PREFIX or starts with it and a
// space, a spec with "*" elsewhere a pattern where each "*" stands for any
// text, anything else the command exactly.
func matchesRule(spec, cmd string) bool {
	switch {
	case spec == "" || spec == "*":
		return true
	case strings.HasSuffix(spec, ":*"):
		p := strings.TrimSuffix(spec, ":*")
		return cmd == p || strings.HasPrefix(cmd, p+" ")
	case strings.Contains(spec, "*"):
		return globMatch(spec, cmd)
	}
	return cmd == spec
}

// globMatch matches s against pattern, where each "*" is any text.
func globMatch(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i, p := range parts[1:] {
		if i == len(parts)-2 {
			return strings.HasSuffix(s, p)
		}
		j := strings.Index(s, p)
		if j < 0 {
			return false
		}
		s = s[j+len(p):]
	}
	return true
}

// claudeRules gathers the Bash rules of every settings file Claude Code
// reads for the project, and of its command line.
func claudeRules(h *HookInput, args []string) claudePermissions {
	var p claudePermissions
	project := os.Getenv("CLAUDE_PROJECT_DIR")
	if project == "" {
		project = h.Cwd
	}
	files := []string{"/etc/claude-code/managed-settings.json"}
	if home, err := os.UserHomeDir(); err == nil {
		files = append(files, filepath.Join(home, ".claude", "settings.json"))
	}
	if project != "" {
		files = append(files, filepath.Join(project, ".claude", "settings.json"), filepath.Join(project, ".claude", "settings.local.json"))
	}
	for _, f := range files {
		p.addSettings(f)
	}
	p.addArgs(args)
	return p
}

// addSettings adds the permissions of one settings file. A file that is
// there but cannot be read holds rules nobody knows: it denies everything.
func (p *claudePermissions) addSettings(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		if !os.IsNotExist(err) {
			p.deny = append(p.deny, "")
		}
		return
	}
	var s struct {
		Permissions struct {
			Allow       []string `json:"allow"`
			Ask         []string `json:"ask"`
			Deny        []string `json:"deny"`
			DefaultMode string   `json:"defaultMode"`
		} `json:"permissions"`
	}
	if json.Unmarshal(b, &s) != nil {
		p.deny = append(p.deny, "")
		return
	}
	p.allow = append(p.allow, bashSpecs(s.Permissions.Allow)...)
	p.ask = append(p.ask, bashSpecs(s.Permissions.Ask)...)
	p.deny = append(p.deny, bashSpecs(s.Permissions.Deny)...)
	if s.Permissions.DefaultMode != "" {
		p.mode = s.Permissions.DefaultMode
	}
}

// addArgs adds the rules and the mode given on Claude Code's command line.
func (p *claudePermissions) addArgs(args []string) {
	for i := 0; i < len(args); i++ {
		name, value, inline := strings.Cut(args[i], "=")
		var list *[]string
		switch name {
		case "--allowedTools", "--allowed-tools":
			list = &p.allow
		case "--disallowedTools", "--disallowed-tools":
			list = &p.deny
		case "--permission-mode":
			if !inline && i+1 < len(args) {
				i++
				value = args[i]
			}
			p.mode = value
			continue
		case "--dangerously-skip-permissions":
			p.mode = "bypassPermissions"
			continue
		default:
			continue
		}
		var values []string
		if inline {
			values = []string{value}
		} else {
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				values = append(values, args[i])
			}
		}
		for _, v := range values {
			*list = append(*list, bashSpecs(splitTools(v))...)
		}
	}
}

// splitTools splits a tool list as Claude Code's flags take it: by commas
// and spaces outside parentheses.
func splitTools(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case depth == 0 && (r == ',' || r == ' '):
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// bashSpecs keeps the Bash rules of a rule list, as the spec inside
// Bash(...) ("" for Bash alone).
func bashSpecs(rules []string) []string {
	var out []string
	for _, r := range rules {
		r = strings.TrimSpace(r)
		switch {
		case r == "Bash":
			out = append(out, "")
		case strings.HasPrefix(r, "Bash(") && strings.HasSuffix(r, ")"):
			out = append(out, strings.TrimSpace(r[len("Bash("):len(r)-1]))
		}
	}
	return out
}

func (svc HookServices) claudeArgs() []string {
	if svc.ClaudeArgs != nil {
		return svc.ClaudeArgs()
	}
	return agentArgs("claude")
}

// agentArgs is the command line of the nearest ancestor process whose
// command names the agent (the hook runs under the agent, maybe through a
// shell); nil where there is none or the system does not say (no /proc).
func agentArgs(name string) []string {
	pid := os.Getppid()
	for range 6 {
		if pid <= 1 {
			return nil
		}
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if err != nil {
			return nil
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		for _, a := range args[:min(len(args), 2)] {
			if strings.Contains(filepath.Base(a), name) {
				return args
			}
		}
		pid = parentOf(pid)
	}
	return nil
}

// parentOf reads a process's parent from /proc (0 when it cannot).
func parentOf(pid int) int {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(fields[1])
	return n
}
