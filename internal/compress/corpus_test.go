package compress

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/tokens"
)

// corpusEntry is one real tool output with the facts its digest must keep.
//
// NAME.facts holds one fact per line: text that must appear verbatim in the
// summary digest. "!text" must not appear (noise that has to go);
// "@compressor NAME" names the compressor that must be chosen; lines
// starting with '#' and blank lines are ignored.
type corpusEntry struct {
	name, cmd, root, out string
	must, mustNot        []string
	compressor           string
}

func loadCorpus(t *testing.T) []corpusEntry {
	t.Helper()
	cmds, err := filepath.Glob("testdata/corpus/*.cmd")
	if err != nil || len(cmds) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	var out []corpusEntry
	for _, c := range cmds {
		name := strings.TrimSuffix(filepath.Base(c), ".cmd")
		e := corpusEntry{name: name}
		head := readLines(t, c)
		e.cmd = head[0]
		for _, l := range head[1:] {
			if r, ok := strings.CutPrefix(l, "# root "); ok {
				e.root = r
			}
		}
		b, err := os.ReadFile(strings.TrimSuffix(c, ".cmd") + ".out")
		if err != nil {
			t.Fatal(err)
		}
		e.out = string(b)
		for _, l := range readLines(t, strings.TrimSuffix(c, ".cmd")+".facts") {
			switch {
			case l == "" || strings.HasPrefix(l, "#"):
			case strings.HasPrefix(l, "@compressor "):
				e.compressor = strings.TrimPrefix(l, "@compressor ")
			case strings.HasPrefix(l, "!"):
				e.mustNot = append(e.mustNot, l[1:])
			default:
				e.must = append(e.must, l)
			}
		}
		out = append(out, e)
	}
	return out
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("corpus entry %s: %v", path, err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// compressEntry digests an entry as run does: compressor chosen from the
// command line and the head of the output, summary intent, no cap.
func compressEntry(e corpusEntry, intent Intent) (string, string) {
	head := e.out
	if len(head) > 4096 {
		head = head[:4096]
	}
	f := Select([]string{"bash", "-c", e.cmd}, []byte(head))
	c := f.New(Options{Intent: intent, Root: e.root})
	for _, l := range strings.Split(strings.TrimSuffix(e.out, "\n"), "\n") {
		c.Line(l)
	}
	return f.Name, Fit(c.Finish(), 0).Text
}

// TestCorpusKeepsEveryFact checks that the summary digest of every real
// output keeps all its facts and drops its noise, and that every output over
// 2,000 tokens, and all of them together, shrink by at least 80%.
func TestCorpusKeepsEveryFact(t *testing.T) {
	var largeRaw, largeDigest int
	for _, e := range loadCorpus(t) {
		t.Run(e.name, func(t *testing.T) {
			name, digest := compressEntry(e, Summary)
			if e.compressor != "" && name != e.compressor {
				t.Errorf("compressor = %s, want %s", name, e.compressor)
			}
			if len(e.must) == 0 {
				t.Errorf("no facts listed for %s", e.name)
			}
			for _, f := range e.must {
				if !strings.Contains(digest, f) {
					t.Errorf("fact lost: %q", f)
				}
			}
			for _, f := range e.mustNot {
				if strings.Contains(digest, f) {
					t.Errorf("noise kept: %q", f)
				}
			}
			raw, dig := tokens.Count(e.out), tokens.Count(digest)
			reduction := 1 - float64(dig)/float64(max(raw, 1))
			t.Logf("%s (%s): %d → %d tokens (%.0f%% smaller)", e.name, name, raw, dig, 100*reduction)
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
	if reduction < 0.80 {
		t.Errorf("large outputs shrink by %.1f%%, want at least 80%%", 100*reduction)
	}
}
