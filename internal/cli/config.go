package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/config"
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
			st, err := a.store(cmd.Context())
			if err != nil {
				return err
			}
			var out []config.Setting
			switch len(args) {
			case 0:
				out, err = config.All(cmd.Context(), st)
			case 1:
				var one config.Setting
				one, err = config.Get(cmd.Context(), st, args[0])
				out = []config.Setting{one}
			default:
				var one config.Setting
				one, err = config.Set(cmd.Context(), st, args[0], args[1])
				out = []config.Setting{one}
			}
			if err != nil {
				return usageError{err}
			}
			return a.render(map[string]any{"settings": out}, func() error { return printSettings(a.io.Out, out) })
		},
	}
	return cmd
}

func keysHelp() string {
	s := ""
	for _, k := range config.Keys {
		s += fmt.Sprintf("  %-10s %s (default %s)\n", k.Name, k.Help, k.Default)
	}
	return s
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
