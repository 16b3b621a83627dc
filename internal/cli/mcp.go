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
	"github.com/freshctx/freshctx/internal/mcpserver"
	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/workspace"
)

func newMCPCmd(a *app) *cobra.Command {
	var tools string
	var structured bool
	cmd := &cobra.Command{
		Annotations: map[string]string{collectorKey: collectServer},
		Use:         "mcp [--tools a,b,...] [--session S]",
		Short:       "Serve freshctx as MCP tools over stdio",
		Long: `Serve run, recall, show, read, session_*, registry_* and artifact_* as MCP
tools over stdin/stdout, for the workspace of the working directory (or
--root, or $FRESHCTX_ROOT). Each tool answers with the text the CLI prints;
--structured adds the object the CLI prints with --json as structured
content (agents pass it to the model too, at several times the tokens).

The read tool answers "unchanged" or a diff only in a read session that
something which sees the agent's context resets puts barriers in: the session
an agent's hook names in the call (freshctx init installs such hooks for
Claude Code and Codex), or the one --session names, whose caller then owns
its barriers (session_compact on every reset). Any other read is answered
with content, every time: the server cannot see its client's resets.
Tools: ` + strings.Join(mcpserver.Names(), ", "),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var selected []string
			if tools != "" {
				selected = strings.Split(tools, ",")
			}
			root := a.rootFlag
			if root == "" {
				root = os.Getenv("FRESHCTX_ROOT")
			}
			var fallback []string
			for _, p := range strings.Split(os.Getenv("WORKSPACE_FOLDER_PATHS"), ",") {
				if p = strings.TrimSpace(p); p != "" {
					fallback = append(fallback, p)
				}
			}
			fallback = append(fallback, a.io.Cwd)
			var srv *mcpserver.Server
			srv, err := mcpserver.New(mcpserver.Options{Root: root, Fallback: fallback, Session: a.mcpSession, Tools: selected,
				Env: a.io.Env, Version: Version, Structured: structured,
				Open: func(ctx context.Context, dir string) (*mcpserver.Project, error) {
					return a.openProject(ctx, dir, dir == root, srv.Session())
				}})
			if err != nil {
				return usageError{err}
			}
			return srv.Run(cmd.Context(), mcpserver.Stdio(os.Stdin, os.Stdout))
		},
	}
	cmd.Flags().StringVar(&tools, "tools", "", "serve only these tools (comma-separated)")
	cmd.Flags().StringVar(&a.mcpSession, "session", "", "the read cache session, whose barriers (session_compact) the caller then owns "+
		"(default: one per connection, where a read no hook named a session for is always answered with content)")
	cmd.Flags().BoolVar(&structured, "structured", false, "also answer with the --json object as structured content")
	return cmd
}

// openProject opens the workspace of dir for the MCP server and registers
// the server's read session as live. The file system root and the home
// folder are no project: nothing is created there.
func (a *app) openProject(ctx context.Context, dir string, given bool, session string) (*mcpserver.Project, error) {
	var ws *workspace.Workspace
	var err error
	if given {
		ws, err = a.workspace() // --root or FRESHCTX_ROOT, as every command takes it
	} else {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(a.io.Cwd, dir)
		}
		ws, err = workspace.Discover(dir)
	}
	if err != nil {
		return nil, err
	}
	if err := notAProject(ws.Root); err != nil {
		return nil, err
	}
	a.ws, a.st = ws, nil
	st, err := a.store(ctx)
	if err != nil {
		return nil, &mcpserver.StoreUnusable{WS: ws, Err: err}
	}
	retention, err := config.Retention(ctx, st)
	if err != nil {
		return nil, err
	}
	max, err := config.MaxFileSize(ctx, st)
	if err != nil {
		return nil, err
	}
	rc := &readcache.Service{WS: ws, Store: st}
	// A session the server made for this connection ends with it.
	if err := rc.Attach(ctx, session, os.Getpid(), a.mcpSession == ""); err != nil {
		return nil, err
	}
	return &mcpserver.Project{WS: ws, Store: st, Retention: retention, MaxFileSize: max,
		Close: func() { rc.Detach(context.Background(), session) }}, nil
}

// notAProject refuses the file system root and the home folder, where an
// MCP client started without a project would have freshctx make its store.
func notAProject(root string) error {
	if filepath.Dir(root) == root {
		return fmt.Errorf("%s is the file system root, not a project", root)
	}
	if home, err := os.UserHomeDir(); err == nil {
		if real, err := filepath.EvalSymlinks(home); err == nil && real == root || home == root {
			return fmt.Errorf("%s is the home folder, not a project", root)
		}
	}
	return nil
}

func newInitCmd(a *app) *cobra.Command {
	var dryRun, project, user, remove bool
	cmd := &cobra.Command{
		Use:   "init claude-code|cursor|codex|pi [--project|--user] [--dry-run] [--remove]",
		Short: "Wire freshctx into an agent's configuration",
		Long: `Add freshctx to an agent's configuration, merging into what is there (no key
is dropped; a second run changes nothing):
  claude-code  .mcp.json (the MCP server), .claude/settings.json (SessionStart,
               PreCompact, PostToolUse (Read, and Edit, Write, MultiEdit,
               NotebookEdit), PreToolUse (Bash, and
               freshctx's read and session tools), SessionEnd and
               SubagentStop hooks running "freshctx hook claude-code"),
               CLAUDE.md (when to use run, recall and read)
  cursor       .cursor/mcp.json
  pi           .pi/extensions/freshctx.ts (with --user
               ~/.pi/agent/extensions/freshctx.ts), an extension that
               answers pi's read from the read cache (pi's own read runs
               first; its result stands whenever freshctx is missing,
               fails or is slow), follows pi's session tree, marks files
               pi's edit and write change, routes tests and builds in bash
               through freshctx run, and adds pi-readcache's
               readcache_refresh tool and /readcache-refresh and
               /readcache-status commands.
--remove takes out what init put in, as text: each of freshctx's entries
goes with the separator that joined it, so a file init added to is given
back byte for byte; an entry not as init writes it (edited, or another
command under freshctx's name) is left and said; a hooks, mcpServers or
event list left empty goes too, and a file left holding nothing is removed.
  codex        in $CODEX_HOME (default ~/.codex), or with --project in the
               repository's .codex folder (Codex reads it in trusted
               projects): config.toml gets [mcp_servers.freshctx] with its
               tools approved in advance, so codex exec can call them;
               hooks.json gets SessionStart, PreCompact, PostCompact and
               PreToolUse (Bash, and freshctx's read and session tools)
               hooks running "freshctx hook codex". Codex runs a new hook
               only once you trust it: review and trust them with /hooks
               in Codex. Until then freshctx sees none of Codex's context
               resets, and its read tool answers every read with content,
               never "unchanged".
In the home folder (or at the file system root) init writes nothing of a
project's: --user says to write your own configuration, for every project.
Every file is written whole or not at all (beside it, then renamed over it),
keeping every byte freshctx does not add; a file holding a key freshctx must
add under twice, or freshctx's CLAUDE.md markers out of order, is left as it
is and said.
freshctx must be on PATH (go install ./cmd/freshctx).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("init takes one agent: claude-code, cursor, codex or pi")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := a.workspace()
			if err != nil {
				return err
			}
			if project && user {
				return usagef("--project and --user name different places: give one")
			}
			home, _ := os.UserHomeDir()
			agent, ok := integrate.Lookup(args[0])
			if !ok {
				return usagef("unknown agent %q: want %s", args[0], strings.Join(integrate.Names(), ", "))
			}
			place := integrate.Place{Root: ws.Root, Home: home, User: user || agent.UserByDefault && !project}
			if notAProject(ws.Root) != nil && !place.User {
				return usagef("%s is not a project (the home folder or the file system root): init writes the configuration "+
					"every project shares only with --user", ws.Root)
			}
			plan := agent.Install
			if remove {
				if plan = agent.Remove; plan == nil {
					return usagef("--remove is not offered for %s: its files hold your own settings too; take freshctx's entries out by hand", agent.Title)
				}
			}
			changes, err := plan(place)
			if err != nil {
				return err
			}
			if !dryRun {
				if err := integrate.Apply(changes); err != nil {
					return err
				}
			}
			return a.render(map[string]any{"changes": changes, "dry_run": dryRun}, func() error {
				for _, c := range changes {
					verb := c.Action
					writes := c.Action == "created" || c.Action == "updated"
					if dryRun && writes {
						verb = "would be " + verb
					}
					fmt.Fprintf(a.io.Out, "%s: %s\n", c.Path, verb)
					if dryRun && writes {
						fmt.Fprintf(a.io.Out, "%s\n", c.Content)
					}
				}
				if agent.Next != "" && !remove {
					fmt.Fprintln(a.io.Out, "next: "+agent.Next)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "show what would change without writing")
	cmd.Flags().BoolVar(&project, "project", false, "codex: write the repository's .codex folder instead of $CODEX_HOME (~/.codex)")
	cmd.Flags().BoolVar(&user, "user", false, "claude-code, cursor, pi: write your own configuration, for every project "+
		"(~/.claude/settings.json, ~/.claude.json, ~/.claude/CLAUDE.md; ~/.cursor/mcp.json; ~/.pi/agent/extensions); "+
		"the only way init writes in the home folder")
	cmd.Flags().BoolVar(&remove, "remove", false, "take out what init put in (entries not as init writes them are left, and said)")
	return cmd
}

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
			agent, _ := integrate.ParseAgent(args[0])
			h, err := integrate.ParseHook(a.io.In)
			if err != nil {
				return err
			}
			if h.Cwd != "" && a.rootFlag == "" && os.Getenv("FRESHCTX_ROOT") == "" {
				if !filepath.IsAbs(h.Cwd) {
					return nil // a folder named relative to nothing: no project to act in
				}
				a.io.Cwd = h.Cwd
			}
			if ok, err := a.hookProject(); err != nil || !ok {
				return err
			}
			if a.bashNotRouted(h) {
				return nil // most of what an agent runs: answered without opening the store
			}
			st, err := a.store(cmd.Context())
			if errors.Is(err, ErrNotAProject) {
				return nil // the agent started outside a project: nothing to do
			}
			if err != nil {
				return err
			}
			run, err := config.RunCommands(cmd.Context(), st)
			if err != nil {
				return err
			}
			self, _ := os.Executable() // else "freshctx", found on the shell's PATH
			svc := integrate.HookServices{
				ReadCache:    &readcache.Service{WS: a.ws, Store: st, Cwd: a.io.Cwd, TokensLater: true},
				SyncRegistry: func() error { return a.syncInBackground(st.Path()) },
				RunCommands:  run,
				Self:         self,
			}
			out, err := integrate.Hook(cmd.Context(), agent, h, svc)
			if err != nil {
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

// bashNotRouted reports whether h is a PreToolUse of Bash that the run
// commands mirrored beside the store (config.CachedRunCommands) do not
// route; without a mirror it cannot tell, and says no.
func (a *app) bashNotRouted(h *integrate.HookInput) bool {
	if h.Event != "PreToolUse" || h.ToolName != "Bash" || a.json {
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
