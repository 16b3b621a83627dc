package compress

import (
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/corpus"
	"github.com/freshctx/freshctx/internal/tokens"
)

// corpusEntry is one real tool output with the facts its digest must keep
// (the format is corpus's).
type corpusEntry = corpus.Entry

func loadCorpus(t *testing.T) []corpusEntry {
	t.Helper()
	entries, err := corpus.Load("testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// entryFactory is the compressor run picks for an entry: from its command
// line and the head of its output.
func entryFactory(e corpusEntry) Factory {
	head := e.Out[:min(len(e.Out), 4096)]
	return Select([]string{"bash", "-c", e.Cmd}, []byte(head))
}

// compressEntry digests an entry as run does: compressor chosen from the
// command line and the head of the output, summary intent, no cap.
func compressEntry(e corpusEntry, intent Intent) (string, string) {
	f := entryFactory(e)
	c := f.New(Options{Intent: intent, Root: e.Root})
	for _, l := range strings.Split(strings.TrimSuffix(e.Out, "\n"), "\n") {
		c.Line(l)
	}
	return f.Name, Fit(c.Finish(), 0).Text
}

// TestCorpusKeepsEveryFact checks that the summary digest of every real
// output keeps all its facts and drops its noise, and that every output over
// 2,000 tokens shrinks by at least 80%, and all of them together by 85%.
func TestCorpusKeepsEveryFact(t *testing.T) {
	var largeRaw, largeDigest int
	for _, e := range loadCorpus(t) {
		t.Run(e.Name, func(t *testing.T) {
			name, digest := compressEntry(e, Summary)
			if e.Compressor != "" && name != e.Compressor {
				t.Errorf("compressor = %s, want %s", name, e.Compressor)
			}
			if len(e.Must)+len(e.MustNot) == 0 {
				t.Errorf("no facts listed for %s", e.Name)
			}
			for _, f := range e.Must {
				if !strings.Contains(digest, f) {
					t.Errorf("fact lost: %q", f)
				}
			}
			for _, f := range e.MustNot {
				if strings.Contains(digest, f) {
					t.Errorf("noise kept: %q", f)
				}
			}
			raw, dig := tokens.Count(e.Out), tokens.Count(digest)
			reduction := 1 - float64(dig)/float64(max(raw, 1))
			t.Logf("%s (%s): %d → %d tokens (%.0f%% smaller)", e.Name, name, raw, dig, 100*reduction)
			if raw > 2000 {
				largeRaw += raw
				largeDigest += dig
				if reduction < 0.80 {
					t.Errorf("a large output shrinks by only %.0f%%, want at least 80%%", 100*reduction)
				}
			}
			if t.Failed() {
				t.Logf("digest:\n%s", digest)
			}
		})
	}
	if largeRaw == 0 {
		t.Fatal("the corpus has no output over 2,000 tokens")
	}
	reduction := 1 - float64(largeDigest)/float64(largeRaw)
	t.Logf("large outputs: %d → %d tokens, %.1f%% smaller", largeRaw, largeDigest, 100*reduction)
	if reduction < 0.85 {
		t.Errorf("large outputs shrink by %.1f%% in all, want at least 85%%", 100*reduction)
	}
}

// TestCorpusIntentsKeepHeadlines checks, per intent, that a digest keeping
// a line of a diagnostic keeps its headline: " --> build.rs:2:9" or an
// assertion message alone does not say what failed.
func TestCorpusIntentsKeepHeadlines(t *testing.T) {
	checked := 0
	for _, e := range loadCorpus(t) {
		for _, in := range []Intent{Summary, Errors, Tests} {
			_, d := compressEntry(e, in)
			for _, dg := range e.Diags {
				if in == Summary && !strings.Contains(d, dg.Line) {
					t.Errorf("%s: the summary lost %q", e.Name, dg.Line)
				}
				if strings.Contains(d, dg.Line) {
					checked++
					if !strings.Contains(d, dg.Head) {
						t.Errorf("%s, %s intent: kept %q without its headline %q\n%s", e.Name, in, dg.Line, dg.Head, d)
					}
				}
			}
		}
	}
	if checked < 30 {
		t.Errorf("only %d headline checks ran", checked)
	}
}

// TestCorpusSize holds the corpus to what it must cover: real outputs of
// many tools.
func TestCorpusSize(t *testing.T) {
	entries := loadCorpus(t)
	tools := map[string]bool{}
	for _, e := range entries {
		tools[corpusTool(e.Cmd)] = true
	}
	t.Logf("%d outputs of %d tools", len(entries), len(tools))
	if len(entries) < 50 || len(tools) < 12 {
		t.Errorf("corpus has %d outputs of %d tools, want at least 50 of 12", len(entries), len(tools))
	}
}

// corpusTool names the tool a corpus command line runs: the program of its
// last "&&" step, past environment settings and launchers (env, npx,
// python3 -m), without a version.
func corpusTool(cmd string) string {
	steps := strings.Split(cmd, "&&")
	f := strings.Fields(steps[len(steps)-1])
	for len(f) > 1 {
		switch {
		case strings.Contains(f[0], "="), f[0] == "env", f[0] == "npx", f[0] == "-y", f[0] == "-u", f[0] == "-m",
			strings.HasPrefix(f[0], "python"), f[0] == "PIP_FIND_LINKS":
			f = f[1:]
			continue
		}
		break
	}
	tool, _, _ := strings.Cut(f[0], "@")
	return tool
}
