package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/team"
	"github.com/freshctx/freshctx/internal/teamsync"
	"github.com/freshctx/freshctx/internal/termsafe"
)

// teamSnippetLines is how much of a team record's summary recall shows.
const teamSnippetLines = 8

// TeamHits prints recall --team's results: each record with its label
// against this work tree, who published it and where, and the start of
// its summary; then what was left out for want of a signature.
func TeamHits(w io.Writer, hits []teamsync.Hit, ignored int) error {
	if len(hits) == 0 {
		fmt.Fprintln(w, "no matching team records")
	}
	for i, h := range hits {
		if i > 0 {
			fmt.Fprintln(w)
		}
		what, exit := commandLine(h.Label, h.Command, h.ExitCode)
		who := team.Who(h.Author, h.Machine, h.CI)
		signed := ""
		if h.Signed {
			signed = " · signed"
		}
		fmt.Fprintf(w, "team · %s · %s%s · by %s · %s ago%s\n", Freshness(&h.Freshness), Truncate(termsafe.String(what), 70), exit,
			termsafe.String(who), Age(timeSince(h.CreatedAt)), signed)
		lines := strings.Split(strings.TrimRight(termsafe.String(h.Summary), "\n"), "\n")
		if len(lines) > teamSnippetLines {
			lines = append(lines[:teamSnippetLines], fmt.Sprintf("… %d more lines", len(lines)-teamSnippetLines))
		}
		fmt.Fprintf(w, "  %s\n", strings.Join(lines, "\n  "))
		for _, f := range h.Freshness.Files {
			if f.Label.Stale() || f.Label == freshness.Unknown {
				fmt.Fprintf(w, "  %s %s: %s\n", f.Label, Path(f.Path), f.Reason)
			}
		}
	}
	if ignored > 0 {
		fmt.Fprintf(w, "(%d unsigned team records left out: team.require_signed)\n", ignored)
	}
	return nil
}

// ArtifactFromTeam says whose an artifact a cold get took from the team
// store was (it is a hit by this work tree's own bytes).
func ArtifactFromTeam(w io.Writer, o *teamsync.Origin, hit bool) error {
	who := team.Who(o.Author, o.Machine, o.CI)
	signed := ""
	if o.Signed {
		signed = ", signed"
	}
	matches := ""
	if hit {
		matches = "; every input matches this work tree's bytes"
	}
	_, err := fmt.Fprintf(w, "freshctx: from the team store: put by %s %s ago%s%s\n",
		termsafe.String(who), Age(timeSince(o.CreatedAt)), signed, matches)
	return err
}
