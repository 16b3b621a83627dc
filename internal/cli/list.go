package cli

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/freshctx/freshctx/internal/render"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/store"

	"github.com/freshctx/freshctx/internal/freshness"
)

// listItem is one row of `list --json`.
type listItem struct {
	ID           int64           `json:"id"`
	Command      string          `json:"command"`
	Label        string          `json:"label"`
	ExitCode     *int            `json:"exit_code"`
	CreatedAt    time.Time       `json:"created_at"`
	DurationMS   int64           `json:"duration_ms"`
	Freshness    freshness.Label `json:"freshness"`
	Files        int             `json:"files"`
	RawTokens    int             `json:"raw_tokens"`
	DigestTokens int             `json:"digest_tokens"`
}

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
				return a.render(map[string]any{"records": []listItem{}}, func() error { return printList(a.io.Out, nil) })
			}
			if err != nil {
				return err
			}
			recs, err := svc.List(cmd.Context(), limit)
			if err != nil {
				return err
			}
			items := make([]listItem, len(recs))
			for i, r := range recs {
				items[i] = listItem{ID: r.ID, Command: r.Command, Label: r.Label, ExitCode: r.ExitCode,
					CreatedAt: r.CreatedAt, DurationMS: r.DurationMS, Freshness: r.Freshness.Label,
					Files: len(r.Files), RawTokens: r.RawTokens, DigestTokens: r.DigestTokens}
			}
			return a.render(map[string]any{"records": items}, func() error { return printList(a.io.Out, items) })
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 20, "show at most this many records (0: all)")
	return cmd
}

func printList(w io.Writer, items []listItem) error {
	if len(items) == 0 {
		_, err := fmt.Fprintln(w, "no records yet: try freshctx run -- go test ./...")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tAGE\tEXIT\tFRESHNESS\tTOKENS\tCOMMAND")
	for _, it := range items {
		exit := "-"
		if it.ExitCode != nil {
			exit = fmt.Sprint(*it.ExitCode)
		}
		what := it.Command
		if it.Label != "" {
			what = "[" + it.Label + "] " + what
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d→%d\t%s\n", it.ID, render.Age(time.Since(it.CreatedAt)), exit,
			it.Freshness, it.RawTokens, it.DigestTokens, render.Truncate(what, 60))
	}
	return tw.Flush()
}
