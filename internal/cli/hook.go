package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/config"
	"github.com/freshctx/freshctx/internal/integrate"
	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/store"
)

func newHookCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "hook claude-code|codex|pi < HOOK_JSON",
		Short: "Answer an agent's hook (init claude-code, init codex and init pi install them)",
		Long: `Answer a Claude Code or Codex hook read from stdin; what is printed is the
hook's answer. pi's extension (init pi) asks "hook pi" only how to route a
bash line (PreToolUse on Bash, below); its reads go to freshctx mcp.
  SessionStart (startup, resume, clear, compact, fork), PreCompact and
  PostCompact: put a barrier in the conversation's read session (named by the
  agent's session_id; a subagent's by its agent_id too) and in every session
  a running freshctx mcp serves, so no read answers "unchanged" for a file
  the model no longer holds. SessionStart also starts a registry sync in the
  background and returns at once.
  PostToolUse on Claude Code's Read: the read cache answers "unchanged" or a
  diff in place of the file when the model already holds it. Before that,
  and before freshctx's own read tool, the conversation's transcript is read
  for a /rewind, which no hook reports: one puts a barrier first.
  PostToolUse on Claude Code's Edit, Write, MultiEdit and NotebookEdit: the
  file's picture is marked edited (no "unchanged" until it is read again).
  PreToolUse on Bash: each command of the line starting with one of the
  config key hooks.run_commands runs through freshctx run; the rest of the
  line is left as written, and a line whose output is piped, redirected or
  substituted is left alone. Only where the user's permission rules allow
  the original line (or nothing is asked) is it rewritten.
  PreToolUse on freshctx's read and session tools: the call is
  given the read session of the context that makes it (main thread or
  subagent), which share one MCP connection.
  SessionEnd and SubagentStop (Claude Code): the conversation's read
  sessions, or the subagent's, end: session gc may delete them.
The hook's cwd names the project. A hook that fails prints its error and
exits 1; the agent goes on without freshctx's answer.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("hook takes one agent: claude-code, codex or pi")
			}
			if _, ok := integrate.ParseAgent(args[0]); !ok {
				return usagef("unknown agent %q: want claude-code, codex or pi", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			h, out, err := a.runHook(cmd.Context(), args[0])
			if err != nil || h == nil {
				return err
			}
			if a.json {
				return a.render(hookJSON(args[0], h, out), nil)
			}
			_, err = fmt.Fprint(a.io.Out, out)
			return err
		},
	}
}

// runHook answers the hook of agent read from stdin: the hook, and what to
// print for the agent to read. A nil hook is one there is nothing to
// answer: started outside a project, or in a folder named relative to
// nothing.
func (a *app) runHook(ctx context.Context, name string) (*integrate.HookInput, string, error) {
	agent, _ := integrate.ParseAgent(name)
	h, err := integrate.ParseHook(a.io.In)
	if err != nil {
		return nil, "", err
	}
	if h.Cwd != "" && a.rootFlag == "" && os.Getenv("FRESHCTX_ROOT") == "" {
		if !filepath.IsAbs(h.Cwd) {
			return nil, "", nil
		}
		a.io.Cwd = h.Cwd
	}
	if ok, err := a.hookProject(); err != nil || !ok {
		return nil, "", err
	}
	if a.bashNotRouted(h) {
		return h, "", nil // most of what an agent runs: answered without opening the store
	}
	st, err := a.store(ctx)
	if errors.Is(err, ErrNotAProject) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	// Only a hook that may route a shell command uses the run commands;
	// reading them also keeps their mirror beside the store, which the
	// shell prefilters of Codex and pi read before any freshctx starts, so
	// a session's start reads them too: its first line finds the mirror.
	// A Read or an edit does neither.
	var run []string
	if h.RoutesShell() || h.Event == "SessionStart" {
		if run, err = config.RunCommands(ctx, st); err != nil {
			return nil, "", err
		}
	}
	self, _ := os.Executable() // else "freshctx", found on the shell's PATH
	svc := integrate.HookServices{
		ReadCache:    &readcache.Service{WS: a.ws, Store: st, Cwd: a.io.Cwd, TokensLater: true},
		SyncRegistry: func() error { return a.syncInBackground(st.Path()) },
		RunCommands:  run,
		Self:         self,
	}
	out, err := integrate.Hook(ctx, agent, h, svc)
	if err != nil {
		return nil, "", err
	}
	return h, out, nil
}

// bashNotRouted reports whether h is a PreToolUse of Bash that the run
// commands mirrored beside the store (config.CachedRunCommands) do not
// route; without a mirror it cannot tell, and says no.
func (a *app) bashNotRouted(h *integrate.HookInput) bool {
	if !h.RoutesShell() || a.json {
		return false
	}
	path, err := a.storePath(false)
	if err != nil {
		return false
	}
	prefixes, ok := config.CachedRunCommands(path)
	return ok && !integrate.Routes(h, prefixes)
}

// hookProject reports whether a hook may act where it was started: the
// root is a git work tree, or already holds freshctx's store. An agent
// started in a folder that is neither (/etc, a download folder) gets no
// store made there by its hooks; the file system root and the home folder
// never do (projectRoot).
func (a *app) hookProject() (bool, error) {
	if a.storeArg != "" || os.Getenv("FRESHCTX_STORE") != "" || a.rootFlag != "" || os.Getenv("FRESHCTX_ROOT") != "" {
		return true, nil
	}
	ws, err := a.workspace()
	if err != nil {
		return false, err
	}
	if ws.Git != nil {
		return true, nil
	}
	_, err = os.Stat(store.DefaultPath(ws.Root))
	return err == nil, nil
}

// hookJSON is what hook --json prints: the event and the answer the agent
// would read (its JSON as an object, other text as a string, none as null).
func hookJSON(agent string, h *integrate.HookInput, out string) map[string]any {
	var answer any
	switch t := strings.TrimSpace(out); {
	case t == "":
	case json.Valid([]byte(t)):
		answer = json.RawMessage(t)
	default:
		answer = out
	}
	return map[string]any{"agent": agent, "event": h.Event, "session_id": h.SessionID, "answer": answer}
}

// syncInBackground starts freshctx registry sync in its own session, with
// no terminal, and does not wait: a large repository's first sync takes
// seconds, and an agent's hook must not.
func (a *app) syncInBackground(storePath string) error {
	if a.ws == nil || a.ws.Git == nil {
		return nil // the registry follows git work trees only
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("start registry sync: %w", err)
	}
	cmd := exec.Command(self, "--root", a.ws.Root, "--store", storePath, "registry", "sync")
	cmd.Dir = a.ws.Root
	cmd.Env = a.io.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start registry sync: %w", err)
	}
	return cmd.Process.Release()
}
