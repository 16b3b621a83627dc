// Package render turns the results of freshctx's services into the text a
// person or a model reads; the CLI and the MCP server print the same words.
package render

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/freshctx/freshctx/internal/artifact"
	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/nouns"
	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/registry"
	"github.com/freshctx/freshctx/internal/termsafe"
)

// timeSince is time.Since, a variable so output can be pinned in tests.
var timeSince = time.Since

// Record prints a digest and the one-line footer.
func Record(w io.Writer, r *records.Record) error {
	fmt.Fprint(w, r.Digest)
	if r.Digest != "" && !strings.HasSuffix(r.Digest, "\n") {
		fmt.Fprintln(w)
	}
	_, err := fmt.Fprintln(w, footer(r))
	return err
}

// footer names the record under its digest. A digest that is the whole
// output gets the short one — the record's number, a failing status and
// what was redacted —
// so that a command's result is never much more than its plain output.
func footer(r *records.Record) string {
	if r.Whole && r.NotKept == "" {
		short := fmt.Sprintf("freshctx: record %d", r.ID)
		if r.ExitCode != nil && *r.ExitCode != 0 {
			short += fmt.Sprintf(" · exit %d", *r.ExitCode)
		}
		if r.Redactions > 0 {
			short += " · " + nouns.Count(r.Redactions, "secret", "secrets") + " redacted"
		}
		return short
	}
	parts := []string{fmt.Sprintf("freshctx: record %d", r.ID)}
	if r.NotKept != "" {
		parts[0] = "freshctx: record not kept (" + r.NotKept + ")"
	}
	if r.ExitCode != nil {
		parts = append(parts, fmt.Sprintf("exit %d", *r.ExitCode))
	}
	parts = append(parts, fmt.Sprintf("%.1fs", float64(r.DurationMS)/1000))
	if r.Counted() {
		approx := ""
		if !r.RawTokensExact {
			approx = "~"
		}
		parts = append(parts, fmt.Sprintf("%s%d → %d tokens", approx, r.RawTokens, r.DigestTokens))
	} else if r.RawBytes > 0 {
		// A small run's counts are made when first asked for (stats,
		// show --json); its footer says what it is sure of.
		parts = append(parts, fmt.Sprintf("%d → %d bytes", r.RawBytes, len(r.Digest)))
	}
	if n := len(r.Files); n > 0 {
		parts = append(parts, nouns.Count(n, "file", "files"))
	}
	if r.Redactions > 0 {
		parts = append(parts, nouns.Count(r.Redactions, "secret", "secrets")+" redacted")
	}
	if r.NotKept != "" {
		parts = append(parts, "the digest above is all that remains")
	} else {
		parts = append(parts, fmt.Sprintf("raw: freshctx show %d --raw", r.ID))
	}
	return strings.Join(parts, " · ")
}

func Show(w io.Writer, r *records.Record) error {
	exit := "exit -"
	if r.ExitCode != nil {
		exit = fmt.Sprintf("exit %d", *r.ExitCode)
	}
	title := r.Command
	if r.Label != "" {
		title = r.Label + " · " + title
	}
	fmt.Fprintf(w, "record %d · %s · %s · %s · %s\n\n", r.ID, title, exit,
		r.CreatedAt.Local().Format(time.DateTime), Freshness(r.Freshness))
	fmt.Fprint(w, r.Digest)
	if len(r.Freshness.Files) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nfiles:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range r.Freshness.Files {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Label, Path(f.Path), f.Reason)
	}
	return tw.Flush()
}

// Freshness is a record's label with what else is known beside it: a later
// run of its command, and changes in its input scope since it was made.
func Freshness(f *freshness.Result) string {
	if f == nil {
		return string(freshness.Unknown)
	}
	parts := []string{string(f.Label)}
	if f.SupersededBy != 0 {
		parts = append(parts, fmt.Sprintf("superseded by #%d", f.SupersededBy))
	}
	if ic := f.InputsChanged; ic != nil {
		switch {
		case ic.Count > 0:
			more := ""
			if ic.Count > len(ic.Paths) || ic.Unchecked != "" {
				more = ", …"
			}
			parts = append(parts, fmt.Sprintf("inputs changed: %d (%s%s)", ic.Count, strings.Join(Paths(ic.Paths), ", "), more))
		case ic.Unchecked != "":
			parts = append(parts, "inputs not all checked")
		}
	}
	return strings.Join(parts, " · ")
}

func Hits(w io.Writer, hits []records.Hit) error {
	if len(hits) == 0 {
		_, err := fmt.Fprintln(w, "no matching records")
		return err
	}
	for i, h := range hits {
		if i > 0 {
			fmt.Fprintln(w)
		}
		what, exit := commandLine(h.Label, h.Command, h.ExitCode)
		fmt.Fprintf(w, "#%d · %s · %s%s · %s ago\n", h.ID, Freshness(h.Freshness), Truncate(what, 70), exit, Age(timeSince(h.CreatedAt)))
		if h.Snippet != "" {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(h.Snippet, "\n", "\n  "))
		}
		for _, f := range h.Files {
			if f.Label.Stale() || f.Label == freshness.Unknown {
				fmt.Fprintf(w, "  %s %s: %s\n", f.Label, Path(f.Path), f.Reason)
			}
		}
	}
	return nil
}

func Stats(w io.Writer, st *records.Stats) error {
	fmt.Fprintf(w, "%s · %d raw tokens → %d served · %d saved (%.1f%%)",
		nouns.Count(st.Records, "record", "records"), st.RawTokens, st.DigestTokens, st.SavedTokens, st.SavingsPct)
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

func Sync(w io.Writer, r *registry.SyncResult) error {
	parts := []string{"registry: " + r.Action}
	if r.Head != "" {
		parts = append(parts, "HEAD "+Short(r.Head))
	}
	parts = append(parts, nouns.Count(r.Files, "file", "files"))
	if r.Action == registry.ActionVerify {
		parts = append(parts, fmt.Sprintf("%d checked: %d changed, %d missing, %d new", r.Candidates, r.Mismatch, r.Missing, r.New))
	}
	if r.Skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", r.Skipped))
	}
	parts = append(parts, fmt.Sprintf("%d ms", r.ElapsedMS))
	if r.Fallback != "" {
		parts = append(parts, "full pass: the last verified commit is not an ancestor of HEAD")
	}
	_, err := fmt.Fprintln(w, strings.Join(parts, " · "))
	return err
}

func Short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func Verify(w io.Writer, r *registry.VerifyResult) error {
	for _, v := range r.Verdicts {
		if v.Verdict != registry.Match {
			fmt.Fprintf(w, "%-8s %s\n", v.Verdict, Path(v.Path))
		}
	}
	note := ""
	if r.Fallback != "" {
		note = " (full pass)"
	}
	if !r.Applied {
		note += "; nothing written (use --apply)"
	}
	_, err := fmt.Fprintf(w, "%d checked%s: %d match, %d mismatch, %d missing, %d new%s\n",
		r.Candidates, "", r.Match, r.Mismatch, r.Missing, r.New, note)
	return err
}

// summaryAuthor names who wrote a summary: " (by agent)", " (by model
// M)"; nothing for a summary from before authors were kept.
func summaryAuthor(f registry.File) string {
	switch {
	case f.SummarySource != nil:
		return " (by model " + termsafe.String(f.SummarySource.Model) + ")"
	case f.SummaryBy != "":
		return " (by " + termsafe.String(f.SummaryBy) + ")"
	}
	return ""
}

func RegistryList(w io.Writer, r *registry.ListResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range r.Files {
		summary := "-"
		if f.Summary != nil {
			summary = Truncate(*f.Summary, 70)
		}
		if f.SummaryStale {
			summary = fmt.Sprintf("[stale +%d -%d] %s", f.LinesAdded, f.LinesRemoved, summary)
		}
		if f.Summary != nil {
			summary += summaryAuthor(f)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", Path(f.Path), f.Lang, summary)
	}
	tw.Flush()
	var skipped []string
	for reason, n := range r.Counts.Skipped {
		skipped = append(skipped, fmt.Sprintf("%d %s", n, reason))
	}
	line := fmt.Sprintf("%s · %d stale · %d without summary", nouns.Count(r.Counts.Files, "file", "files"), r.Counts.Stale, r.Counts.Unsummarized)
	if len(skipped) > 0 {
		line += " · skipped: " + strings.Join(SortStrings(skipped), ", ")
	}
	if r.Synced == registry.ActionVerify {
		line += " · brought up to date first (registry sync: what changed was hashed and written)"
	}
	if _, err := fmt.Fprintln(w, line); err != nil {
		return err
	}
	const shown = 10
	for i, f := range r.SkippedFiles {
		if i == shown {
			fmt.Fprintf(w, "  … (registry list --json names up to %d)\n", len(r.SkippedFiles))
			break
		}
		fmt.Fprintf(w, "  skipped %s (%s)\n", Path(f.Path), f.Reason)
	}
	return nil
}

func Close(w io.Writer, r *registry.CloseResult) error {
	fmt.Fprintf(w, "commit %s · %s updated\n", Short(r.Commit), nouns.Count(len(r.Updated), "file", "files"))
	if len(r.NeedsSummary) > 0 {
		fmt.Fprintf(w, "needs summary: %s\n", strings.Join(r.NeedsSummary, ", "))
	}
	if r.Advanced {
		_, err := fmt.Fprintf(w, "last verified commit: %s\n", Short(r.LastVerifiedSHA))
		return err
	}
	_, err := fmt.Fprintln(w, "last verified commit unchanged: run freshctx registry sync")
	return err
}

func ArtifactStats(w io.Writer, st *artifact.Stats) error {
	total := st.Hits + st.StaleMisses + st.ColdMisses
	fmt.Fprintf(w, "%d lookups: %d hit (%.1f%%), %d stale (%.1f%%), %d cold (%.1f%%)\n", total,
		st.Hits, 100*st.HitRate, st.StaleMisses, 100*st.StaleMissRate, st.ColdMisses, 100*st.ColdMissRate)
	l := st.RegenLatency
	_, err := fmt.Fprintf(w, "regeneration: %d · p50 %.0f ms · p95 %.0f ms\n", l.Count, l.P50, l.P95)
	return err
}

func Session(w io.Writer, r *readcache.SessionResult) error {
	_, err := fmt.Fprintf(w, "session %s · leaf %d\n", r.Session, r.Leaf)
	return err
}

func Status(w io.Writer, st *readcache.Status) error {
	fmt.Fprintf(w, "session %s · leaf %d · replay window %d entries from index %d\n",
		st.Session, st.Leaf, st.Window.Entries, st.Window.StartIndex)
	var modes []string
	for m, n := range st.Modes {
		modes = append(modes, fmt.Sprintf("%d %s", n, m))
	}
	fmt.Fprintf(w, "reads: %s · %d tokens served of %d (%d saved)\n", strings.Join(SortStrings(modes), ", "),
		st.TokensServed, st.TokensPlain, st.TokensSaved)
	for _, t := range st.Tracked {
		var spans []string
		for _, l := range t.Lines {
			spans = append(spans, fmt.Sprintf("%d-%d", l[0], l[1]))
		}
		whole := ""
		if t.Whole {
			whole = " (whole)"
		}
		fmt.Fprintf(w, "  %s: lines %s%s\n", Path(t.Path), strings.Join(spans, ", "), whole)
	}
	return nil
}

func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// Path shows a path on one line and unambiguously: one holding a control
// character (a newline, a tab) is quoted with Go's escapes, as git quotes
// such names; any other is shown as it is.
func Path(p string) string {
	if strings.ContainsFunc(p, unicode.IsControl) {
		return strconv.Quote(p)
	}
	return p
}

// Paths is Path of each.
func Paths(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = Path(p)
	}
	return out
}

func Truncate(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func SortStrings(s []string) []string {
	slices.Sort(s)
	return s
}

// ArtifactOutcome says why a looked-up artifact is stale, or that there is
// none; nothing for a hit. Slices stale for the same reason are named in
// one line: a file added under a repo map makes each of its slices stale
// by its path set, and 2,000 lines saying so told an agent nothing the
// first did not.
func ArtifactOutcome(w io.Writer, r *artifact.GetResult) error {
	if r.Outcome == artifact.Cold {
		_, err := fmt.Fprintln(w, "freshctx: cold: no such artifact")
		return err
	}
	for _, x := range unsliced(r) {
		if _, err := fmt.Fprintf(w, "freshctx: stale: %s: %s\n", x.Dimension, x.Detail); err != nil {
			return err
		}
	}
	type group struct {
		reason artifact.Reason
		slices []string
	}
	var groups []*group
	byReason := map[artifact.Reason]*group{}
	for _, s := range r.Slices {
		for _, x := range s.Reasons {
			g := byReason[x]
			if g == nil {
				g = &group{reason: x}
				byReason[x] = g
				groups = append(groups, g)
			}
			g.slices = append(g.slices, s.Name)
		}
	}
	for _, g := range groups {
		var err error
		if n := len(g.slices); n == 1 {
			_, err = fmt.Fprintf(w, "freshctx: stale: %s: slice %s: %s\n", g.reason.Dimension, g.slices[0], g.reason.Detail)
		} else {
			_, err = fmt.Fprintf(w, "freshctx: stale: %s: %d slices (%s): %s\n", g.reason.Dimension, n, firstNames(g.slices, 3), g.reason.Detail)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// unsliced is the reasons of an artifact's unnamed slice: those of its
// list that are not, in order, the named slices' own (which the list
// carries as "slice NAME: DETAIL").
func unsliced(r *artifact.GetResult) []artifact.Reason {
	type named struct{ slice, reason int }
	next := named{}
	advance := func() { // to the next named slice's reason, if any
		for next.slice < len(r.Slices) && next.reason >= len(r.Slices[next.slice].Reasons) {
			next = named{next.slice + 1, 0}
		}
	}
	advance()
	var out []artifact.Reason
	for _, x := range r.Reasons {
		if next.slice < len(r.Slices) {
			s := r.Slices[next.slice]
			own := s.Reasons[next.reason]
			if x.Dimension == own.Dimension && x.Detail == "slice "+s.Name+": "+own.Detail {
				next.reason++
				advance()
				continue
			}
		}
		out = append(out, x)
	}
	return out
}

// firstNames lists the first n names, and says how many more there are.
func firstNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// ArtifactContent writes an artifact's content (a stale one's previous
// content too), slice by slice for a sliced artifact.
func ArtifactContent(w io.Writer, r *artifact.GetResult) error {
	if _, err := io.WriteString(w, r.Content); err != nil {
		return err
	}
	for _, s := range r.Slices {
		state := "fresh"
		if !s.Fresh {
			state = "stale"
		}
		fmt.Fprintf(w, "=== slice %s (%s)\n%s", s.Name, state, s.Content)
		if s.Content != "" && !strings.HasSuffix(s.Content, "\n") {
			fmt.Fprintln(w)
		}
	}
	return nil
}

// ReadHeader names a read's mode, entry and reason in one line.
func ReadHeader(w io.Writer, r *readcache.ReadResult) error {
	_, err := fmt.Fprintf(w, "freshctx: %s · entry %d · %s\n", r.Mode, r.Entry, r.Reason)
	return err
}

// ReadText writes what a read gives the model.
func ReadText(w io.Writer, r *readcache.ReadResult) error {
	_, err := io.WriteString(w, r.Text)
	if err == nil && r.Text != "" && !strings.HasSuffix(r.Text, "\n") {
		_, err = io.WriteString(w, "\n")
	}
	return err
}

// Sessions prints the read cache's sessions.
func Sessions(w io.Writer, list []readcache.SessionInfo) error {
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "no sessions yet")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tENTRIES\tLEAF\tAGE\tSTATE")
	for _, s := range list {
		state := "idle"
		switch {
		case s.PID != 0:
			state = fmt.Sprintf("served by pid %d", s.PID)
		case s.Ended:
			state = "ended (session gc deletes it)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", s.Name, s.Entries, s.Leaf, Age(timeSince(s.CreatedAt)), state)
	}
	return tw.Flush()
}

// commandLine is a record's command as a result line shows it (its label
// first) and its exit status, "" when it has none.
func commandLine(label, command string, exitCode *int) (what, exit string) {
	if exitCode != nil {
		exit = fmt.Sprintf(" · exit %d", *exitCode)
	}
	if label != "" {
		return "[" + label + "] " + command, exit
	}
	return command, exit
}
