package cli

import (
	"context"
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
			items, err := a.runList(cmd.Context(), limit)
			if err != nil {
				return err
			}
			return a.render(map[string]any{"records": items}, func() error { return render.List(a.io.Out, items) })
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 20, "show at most this many records (0: all)")
	return cmd
}

// runList lists the newest records with their freshness now; a store not
// made yet holds none.
func (a *app) runList(ctx context.Context, limit int) ([]render.ListItem, error) {
	if limit < 0 {
		return nil, usagef("--limit must not be negative")
	}
	svc, err := a.readRecords(ctx)
	if errors.Is(err, store.ErrNoStore) {
		return []render.ListItem{}, nil
	}
	if err != nil {
		return nil, err
	}
	if a.io.ErrIsTerminal {
		svc.Progress = a.io.Err
	}
	recs, err := svc.List(ctx, limit)
	if err != nil {
		return nil, err
	}
	return render.ListItems(recs), nil
}
