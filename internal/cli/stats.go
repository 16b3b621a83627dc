package cli

import (
	"context"
	"errors"

	"github.com/freshctx/freshctx/internal/render"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/store"
)

func newStatsCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "How many tokens digests saved, in all and per command",
		Long: `Count records and the tokens of their raw output against the tokens of the
digests served instead, with the o200k tokenizer. A record saves raw minus
digest tokens, never less than zero; outputs over 1 MiB have their raw count
extrapolated from a sample and are counted under "estimated". The counts a
small run left for later (see run --help) are made here, from the kept
output, and kept.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := a.runStats(cmd.Context())
			if err != nil {
				return err
			}
			return a.render(st, func() error { return render.Stats(a.io.Out, st) })
		},
	}
}

// runStats counts the records' tokens, making the counts left for later;
// a store not made yet holds nothing to count.
func (a *app) runStats(ctx context.Context) (*records.Stats, error) {
	svc, err := a.readRecords(ctx)
	if errors.Is(err, store.ErrNoStore) {
		return &records.Stats{}, nil
	}
	if err != nil {
		return nil, err
	}
	if a.io.ErrIsTerminal {
		svc.Progress = a.io.Err
	}
	return svc.Stats(ctx)
}
