package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/config"
	"github.com/freshctx/freshctx/internal/mcpserver"
	"github.com/freshctx/freshctx/internal/readcache"
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
Tools: `,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var srv *mcpserver.Server
			opts := a.mcpOptions(tools, structured)
			opts.Open = func(ctx context.Context, dir string) (*mcpserver.Project, error) {
				return a.openProject(ctx, dir, dir == opts.Root, srv.Session())
			}
			srv, err := mcpserver.New(opts)
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
	// The tools are listed when the help is shown: building them (their
	// schemas) is no work for the commands that never serve them.
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		if strings.HasSuffix(c.Long, "Tools: ") {
			c.Long += strings.Join(mcpserver.Names(), ", ")
		}
		c.Root().HelpFunc()(c, args)
	})
	return cmd
}

// mcpOptions is the server's configuration but for how it opens a
// project: the root given (--root, else $FRESHCTX_ROOT), else the folders
// to find one in, in order: those Cursor names in WORKSPACE_FOLDER_PATHS,
// then the working directory.
func (a *app) mcpOptions(tools string, structured bool) mcpserver.Options {
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
	return mcpserver.Options{Root: root, Fallback: fallback, Session: a.mcpSession, Tools: selected,
		Env: a.io.Env, Version: version(), Structured: structured}
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
	a.ws, a.st, a.writePath = ws, nil, ""
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
