package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/records"
)

func newStatsCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "How many tokens digests saved, in all and per command",
		Long: `Count records and the tokens of their raw output against the tokens of the
digests served instead, with the o200k tokenizer. A record saves raw minus
digest tokens, never less than zero; outputs over 1 MiB have their raw count
extrapolated from a sample and are counted under "estimated".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.records(cmd.Context())
			if err != nil {
				return err
			}
			st, err := svc.Stats(cmd.Context())
			if err != nil {
				return err
			}
			return a.render(st, func() error { return printStats(a.io.Out, st) })
		},
	}
}

func printStats(w io.Writer, st *records.Stats) error {
	fmt.Fprintf(w, "%d records · %d raw tokens → %d served · %d saved (%.1f%%)",
		st.Records, st.RawTokens, st.DigestTokens, st.SavedTokens, st.SavingsPct)
	if st.Estimated > 0 {
		fmt.Fprintf(w, " · %d estimated", st.Estimated)
	}
	fmt.Fprintln(w)
	if len(st.ByCommand) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "RECORDS\tRAW\tSERVED\tSAVED\t%\t COMMAND")
	for _, c := range st.ByCommand {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%.1f\t %s\n", c.Records, c.RawTokens, c.DigestTokens, c.SavedTokens, c.SavingsPct, c.Command)
	}
	return tw.Flush()
}
