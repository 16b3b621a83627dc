package render

import (
	"fmt"
	"io"

	"github.com/freshctx/freshctx/internal/nouns"
	"github.com/freshctx/freshctx/internal/summarize"
	"github.com/freshctx/freshctx/internal/termsafe"
)

// listedPerKind bounds the files listed under each heading of a
// summarize run; the rest are counted.
const listedPerKind = 20

// AutoSummarized is a `registry summarize --auto` run.
func AutoSummarized(w io.Writer, r *summarize.Result) error {
	fmt.Fprintf(w, "summarized %s with %s at %s (prompt %s) · %s tokens\n",
		nouns.Count(len(r.Summarized), "file", "files"), termsafe.String(r.Model), termsafe.String(r.Endpoint),
		r.PromptVersion, thousands(r.Tokens))
	skippedList(w, "refused", r.Refused)
	skippedList(w, "failed", r.Failed)
	skippedList(w, "not sent", r.NotSent)
	skippedList(w, "skipped", r.Skipped)
	if n := len(r.ArtifactsRenewed); n > 0 {
		fmt.Fprintf(w, "renewed the stale file_summary artifact of %s\n", nouns.Count(n, "file", "files"))
	}
	if r.Stopped != "" {
		fmt.Fprintf(w, "stopped: %s. Every summary finished is kept; run again to go on with the rest.\n", r.Stopped)
	}
	return nil
}

// AutoPlan is what `registry summarize --auto --dry-run` would send.
func AutoPlan(w io.Writer, p *summarize.DryRun) error {
	for _, f := range p.WouldSend {
		fmt.Fprintf(w, "send      %s  %s bytes, %s tokens\n", Path(f.Path), thousands(f.Bytes), thousands(f.Tokens))
	}
	skippedList(w, "skipped", p.Skipped)
	to := "; no model is configured (summarize.endpoint, summarize.model)"
	if p.Endpoint != "" {
		to = fmt.Sprintf(" to %s at %s", termsafe.String(p.Model), termsafe.String(p.Endpoint))
	}
	_, err := fmt.Fprintf(w, "would send %s, %s bytes, at most %s tokens with the answers%s; nothing was sent\n",
		nouns.Count(len(p.WouldSend), "file", "files"), thousands(p.Bytes), thousands(p.Tokens), to)
	return err
}

func skippedList(w io.Writer, head string, list []summarize.Skipped) {
	for i, s := range list {
		if i == listedPerKind {
			fmt.Fprintf(w, "%-9s … and %d more (--json lists them all)\n", head, len(list)-i)
			break
		}
		fmt.Fprintf(w, "%-9s %s: %s\n", head, Path(s.Path), termsafe.String(s.Reason))
	}
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
