// Command hookalone is not part of freshctx and is never installed. It is
// the path of `freshctx hook` and `freshctx version` built with the
// packages they use and nothing else, for the report's measure of what
// DESIGN.md's one binary costs a call: every package linked into a Go
// binary runs its init and is paged in at every start, and freshctx links
// the MCP SDK, pgx, gitleaks and more that a hook never calls.
//
// A hook is answered as freshctx answers it (integrate.Hook with the read
// cache), minus what no Read hook reaches: the background registry sync,
// --root and --store, and the Bash prefilter. It answers only where
// freshctx has made its store (the report's repository), and makes none.
// The report checks that its answer equals freshctx's before it is timed.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/config"
	"github.com/freshctx/freshctx/internal/integrate"
	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/workspace"
)

func main() {
	root := &cobra.Command{Use: "hookalone", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(&cobra.Command{
		Use:  "hook claude-code|codex|pi < HOOK_JSON",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := hook(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			_, err = fmt.Print(out)
			return err
		},
	})
	root.AddCommand(&cobra.Command{
		Use: "version",
		Run: func(*cobra.Command, []string) { fmt.Println("hookalone: freshctx's hook built alone") },
	})
	if err := root.ExecuteContext(context.Background()); err != nil {
		fmt.Fprintf(os.Stderr, "hookalone: %v\n", err)
		os.Exit(1)
	}
}

// hook answers the hook of agent read from stdin in the project of its
// cwd, as `freshctx hook` does.
func hook(ctx context.Context, name string) (string, error) {
	agent, ok := integrate.ParseAgent(name)
	if !ok {
		return "", fmt.Errorf("unknown agent %q", name)
	}
	h, err := integrate.ParseHook(os.Stdin)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(h.Cwd) {
		return "", nil
	}
	ws, err := workspace.Discover(h.Cwd)
	if err != nil {
		return "", err
	}
	path := store.DefaultPath(ws.Root)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return "", nil // it makes no store: run it where freshctx has made one
	}
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		return "", err
	}
	defer st.Leave() // the process exits next, as freshctx's does after its hook
	run, err := config.RunCommands(ctx, st)
	if err != nil {
		return "", err
	}
	self, _ := os.Executable()
	return integrate.Hook(ctx, agent, h, integrate.HookServices{
		ReadCache:   &readcache.Service{WS: ws, Store: st, Cwd: h.Cwd, TokensLater: true},
		RunCommands: run,
		Self:        self,
	})
}
