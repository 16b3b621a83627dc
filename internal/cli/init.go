package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/config"
	"github.com/freshctx/freshctx/internal/integrate"
)

// initOptions are init's agent and flags.
type initOptions struct {
	agent                         string
	dryRun, project, user, remove bool
}

// initResult is what init changed, or would change with --dry-run.
type initResult struct {
	Changes []integrate.Change `json:"changes"`
	DryRun  bool               `json:"dry_run"`
	// next is what the agent wants done after an install.
	next string
}

const initLong = `Add freshctx to an agent's configuration, merging into what is there (no key
is dropped; a second run changes nothing):
  claude-code  .mcp.json (the MCP server), .claude/settings.json (SessionStart,
               PreCompact, PostToolUse (Read, and Edit, Write, MultiEdit,
               NotebookEdit), PreToolUse (Bash, and
               freshctx's read and session tools), SessionEnd and
               SubagentStop hooks running "freshctx hook claude-code"; the
               Bash hook once per first word of hooks.run_commands, with an
               "if" rule such as Bash(go*), so Claude Code starts it only
               for lines that may be routed: run init again after changing
               that setting, and it puts the new rules in place of its
               old ones), CLAUDE.md (when to use run, recall and read)
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
               hooks running "freshctx hook codex" (Bash's through a few
               lines of bash that answer a line no run command starts
               themselves, without starting freshctx). Codex runs a new hook
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
freshctx must be on PATH (go install ./cmd/freshctx).`

func newInitCmd(a *app) *cobra.Command {
	var o initOptions
	cmd := &cobra.Command{
		Use:   "init claude-code|cursor|codex|pi [--project|--user] [--dry-run] [--remove]",
		Short: "Wire freshctx into an agent's configuration",
		Long:  initLong,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("init takes one agent: claude-code, cursor, codex or pi")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.agent = args[0]
			res, err := a.runInit(o)
			if err != nil {
				return err
			}
			return a.render(res, func() error { return printInit(a, res) })
		},
	}
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "show what would change without writing")
	cmd.Flags().BoolVar(&o.project, "project", false, "codex: write the repository's .codex folder instead of $CODEX_HOME (~/.codex)")
	cmd.Flags().BoolVar(&o.user, "user", false, "claude-code, cursor, pi: write your own configuration, for every project "+
		"(~/.claude/settings.json, ~/.claude.json, ~/.claude/CLAUDE.md; ~/.cursor/mcp.json; ~/.pi/agent/extensions); "+
		"the only way init writes in the home folder")
	cmd.Flags().BoolVar(&o.remove, "remove", false, "take out what init put in (entries not as init writes them are left, and said)")
	return cmd
}

// runInit plans the agent's changes in this workspace and, unless
// dry-run, applies them.
func (a *app) runInit(o initOptions) (*initResult, error) {
	ws, err := a.workspace()
	if err != nil {
		return nil, err
	}
	if o.project && o.user {
		return nil, usagef("--project and --user name different places: give one")
	}
	home, _ := os.UserHomeDir()
	agent, ok := integrate.Lookup(o.agent)
	if !ok {
		return nil, usagef("unknown agent %q: want %s", o.agent, strings.Join(integrate.Names(), ", "))
	}
	place := integrate.Place{Root: ws.Root, Home: home, User: o.user || agent.UserByDefault && !o.project}
	if notAProject(ws.Root) != nil && !place.User {
		return nil, usagef("%s is not a project (the home folder or the file system root): init writes the configuration "+
			"every project shares only with --user", ws.Root)
	}
	if !o.remove {
		place.RunCommands = a.initRunCommands(place.User)
	}
	plan := agent.Install
	if o.remove {
		if plan = agent.Remove; plan == nil {
			return nil, usagef("--remove is not offered for %s: its files hold your own settings too; take freshctx's entries out by hand", agent.Title)
		}
	}
	changes, err := plan(place)
	if err != nil {
		return nil, err
	}
	if !o.dryRun {
		if err := integrate.Apply(changes); err != nil {
			return nil, err
		}
	}
	res := &initResult{Changes: changes, DryRun: o.dryRun}
	if !o.remove {
		res.next = agent.Next
	}
	return res, nil
}

// printInit says what changed, each file with its content when only shown.
func printInit(a *app, res *initResult) error {
	for _, c := range res.Changes {
		verb := c.Action
		writes := c.Action == "created" || c.Action == "updated"
		if res.DryRun && writes {
			verb = "would be " + verb
		}
		fmt.Fprintf(a.io.Out, "%s: %s\n", c.Path, verb)
		if res.DryRun && writes {
			fmt.Fprintf(a.io.Out, "%s\n", c.Content)
		}
	}
	if res.next != "" {
		fmt.Fprintln(a.io.Out, "next: "+res.next)
	}
	return nil
}

// initRunCommands are the Bash command prefixes init filters an agent's
// Bash hook by (integrate.BashRules): this project's hooks.run_commands,
// read without making a store (the default when it has none); for the
// user's configuration, which every project shares, the default ones too.
// A store that cannot be read is said, and the default ones are taken.
func (a *app) initRunCommands(user bool) []string {
	project := config.DefaultRunCommands()
	path, err := a.storePath(false)
	if err == nil {
		if cached, ok := config.CachedRunCommands(path); ok {
			project = cached
		} else if _, statErr := os.Stat(path); statErr == nil {
			if read, err := a.storeRunCommands(); err == nil {
				project = read
			} else {
				fmt.Fprintf(a.io.Err, "freshctx: warning: hooks.run_commands could not be read (%v): the Bash hook is "+
					"started for the default commands' lines\n", err)
			}
		}
	}
	if !user {
		return project
	}
	return slices.Compact(slices.Sorted(slices.Values(append(config.DefaultRunCommands(), project...))))
}

// storeRunCommands reads hooks.run_commands from the store.
func (a *app) storeRunCommands() ([]string, error) {
	ctx := context.Background()
	st, err := a.readStore(ctx)
	if err != nil {
		return nil, err
	}
	return config.RunCommands(ctx, st)
}
