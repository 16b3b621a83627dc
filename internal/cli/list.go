package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/render"
	"github.com/freshctx/freshctx/internal/store"
)

func newListCmd(a *app) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List records, newest first, with their freshness",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 {
				return usagef("--limit must not be negative")
			}
			svc, err := a.readRecords(cmd.Context())
			if errors.Is(err, store.ErrNoStore) {
				return a.render(map[string]any{"records": []render.ListItem{}}, func() error { return render.List(a.io.Out, nil) })
			}
			if err != nil {
				return err
			}
			if a.io.ErrIsTerminal {
				svc.Progress = a.io.Err
			}
			recs, err := svc.List(cmd.Context(), limit)
			if err != nil {
				return err
			}
			items := render.ListItems(recs)
			return a.render(map[string]any{"records": items}, func() error { return render.List(a.io.Out, items) })
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 20, "show at most this many records (0: all)")
	return cmd
}
