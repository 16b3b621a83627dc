package render

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/records"
)

// ListItem is one row of `list --json`.
type ListItem struct {
	ID           int64             `json:"id"`
	Command      string            `json:"command"`
	Label        string            `json:"label"`
	ExitCode     *int              `json:"exit_code"`
	CreatedAt    time.Time         `json:"created_at"`
	DurationMS   int64             `json:"duration_ms"`
	Freshness    *freshness.Result `json:"freshness"`
	Files        int               `json:"files"`
	RawTokens    int               `json:"raw_tokens"`
	DigestTokens int               `json:"digest_tokens"`
}

// ListItems turns records into the rows list shows.
func ListItems(recs []*records.Record) []ListItem {
	items := make([]ListItem, len(recs))
	for i, r := range recs {
		items[i] = ListItem{ID: r.ID, Command: r.Command, Label: r.Label, ExitCode: r.ExitCode,
			CreatedAt: r.CreatedAt, DurationMS: r.DurationMS, Freshness: r.Freshness,
			Files: len(r.Files), RawTokens: r.RawTokens, DigestTokens: r.DigestTokens}
	}
	return items
}

// List prints records newest first, one line each.
func List(w io.Writer, items []ListItem) error {
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
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d→%d\t%s\n", it.ID, Age(timeSince(it.CreatedAt)), exit,
			Freshness(it.Freshness), it.RawTokens, it.DigestTokens, Truncate(what, 60))
	}
	return tw.Flush()
}
