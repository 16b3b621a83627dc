package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/config"
	"github.com/freshctx/freshctx/internal/integrate"
)

func newConfigCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config [KEY [VALUE]]",
		Short: "Show or change this store's settings",
		Long:  "Without arguments, list every setting; with KEY, show it; with KEY VALUE, set it.\n\nSettings:\n" + keysHelp(),
		Example: `  freshctx config
  freshctx config retention 14d`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := a.runConfig(cmd.Context(), args)
			if err != nil {
				return err
			}
			return a.render(map[string]any{"settings": out}, func() error { return printSettings(a.io.Out, out) })
		},
	}
	return cmd
}

// runConfig lists every setting (no args), shows one (KEY) or sets one
// (KEY VALUE).
func (a *app) runConfig(ctx context.Context, args []string) ([]config.Setting, error) {
	open := a.store
	if len(args) < 2 {
		open = a.readOrMakeStore // shows the defaults where there is none
	}
	st, err := open(ctx)
	if err != nil {
		return nil, err
	}
	var one config.Setting
	switch len(args) {
	case 0:
		all, err := config.All(ctx, st)
		if err != nil {
			return nil, usageError{err}
		}
		return all, nil
	case 1:
		one, err = config.Get(ctx, st, args[0])
	default:
		one, err = config.Set(ctx, st, args[0], args[1])
		if err == nil && one.Key == "hooks.run_commands" {
			a.sayUncoveredBashWords(one.Value)
		}
	}
	if err != nil {
		return nil, usageError{err}
	}
	return []config.Setting{one}, nil
}

// sayUncoveredBashWords warns when Claude Code, filtering its Bash hook by
// the rules init wrote (integrate.BashRules), would never start it for
// lines of some of the new run commands.
func (a *app) sayUncoveredBashWords(value string) {
	home, _ := os.UserHomeDir()
	prefixes := strings.Split(value, ",")
	for i, path := range integrate.ClaudeSettingsFiles(a.ws.Root, home) {
		words := integrate.UncoveredBashWords(path, prefixes)
		if len(words) == 0 {
			continue
		}
		again := "freshctx init claude-code"
		if i == 1 {
			again += " --user"
		}
		verb := "is"
		if len(words) > 1 {
			verb = "are"
		}
		fmt.Fprintf(a.io.Err, "freshctx: %s starts the Bash hook only for the commands init found in hooks.run_commands, "+
			"and %s %s not among them: run `%s` again\n", path, strings.Join(words, ", "), verb, again)
	}
}

// keysHelp lists the settings, each name on a line of its own and its
// meaning under it: the names are too unlike in length for one column.
func keysHelp() string {
	var b strings.Builder
	for _, k := range config.Keys {
		fmt.Fprintf(&b, "  %s\n      %s (default %s)\n", k.Name, k.Help, k.Default)
	}
	return b.String()
}

func printSettings(w io.Writer, out []config.Setting) error {
	for _, s := range out {
		note := ""
		if s.Default {
			note = "  (default)"
		}
		if _, err := fmt.Fprintf(w, "%s = %s%s\n", s.Key, s.Value, note); err != nil {
			return err
		}
	}
	return nil
}
