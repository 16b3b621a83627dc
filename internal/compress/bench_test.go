package compress

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/corpus"
)

// fiftyThousand repeats sample lines up to 50,000 lines.
func fiftyThousand(sample []string) []string {
	out := make([]string, 0, 50_000)
	for len(out) < 50_000 {
		out = append(out, sample...)
	}
	return out[:50_000]
}

func appLog() []string {
	var lines []string
	for i := range 1000 {
		switch {
		case i%250 == 0:
			lines = append(lines, fmt.Sprintf("src/server/handler.go:%d:5: error: upstream timeout after %dms", i%400, i))
		case i%97 == 0:
			lines = append(lines, fmt.Sprintf("WARN retrying request %d (attempt 2)", i))
		default:
			lines = append(lines, fmt.Sprintf("2026-11-21T05:00:%02dZ INFO request id=%d path=/api/v1/items/%d status=200 took=%dms", i%60, i, i*7, i%97))
		}
	}
	return lines
}

func corpusLines(b *testing.B, name string) []string {
	data, err := os.ReadFile("testdata/corpus/" + name + ".out")
	if err != nil {
		b.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// goSourceLines are the lines of this package's Go files: `cat` of source
// is digested line by line like any output.
func goSourceLines(b *testing.B) []string {
	names, err := filepath.Glob("*.go")
	if err != nil || len(names) == 0 {
		b.Fatalf("no Go files here: %v", err)
	}
	var lines []string
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, strings.Split(string(data), "\n")...)
	}
	return lines
}

// BenchmarkCompress50kLines measures the throughput of compressing a
// 50,000-line log (goal: at least 50 MB/s): an application log through the
// generic compressor, and real go test -v and pytest -v outputs repeated.
func BenchmarkCompress50kLines(b *testing.B) {
	for _, tc := range []struct {
		name    string
		factory Factory
		lines   []string
	}{
		{"generic-app-log", Generic, fiftyThousand(appLog())},
		{"go-test-v", Go, fiftyThousand(corpusLines(b, "go-test-v"))},
		{"pytest-v", Python, fiftyThousand(corpusLines(b, "pytest"))},
		{"jest", JS, fiftyThousand(corpusLines(b, "jest"))},
		{"go-source", Generic, fiftyThousand(goSourceLines(b))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			size := 0
			for _, l := range tc.lines {
				size += len(l) + 1
			}
			b.SetBytes(int64(size))
			for b.Loop() {
				c := tc.factory.New(Options{Intent: Summary, Root: "/home/dev"})
				for _, l := range tc.lines {
					c.Line(l)
				}
				c.Finish()
			}
		})
	}
}

// BenchmarkCompressCorpus digests every real output of the corpus with the
// compressor run would pick for it, each repeated to 5,000 lines (500 with
// -short), and reports the throughput over all of them and that of the
// slowest output: one expression that runs on every line of one kind of
// output shows there, not in an average.
func BenchmarkCompressCorpus(b *testing.B) {
	entries, err := corpus.Load("testdata/corpus")
	if err != nil {
		b.Fatal(err)
	}
	n := 5000
	if testing.Short() {
		n = 500
	}
	type output struct {
		name    string
		factory Factory
		root    string
		lines   []string
		size    int
	}
	var outs []output
	total := 0
	for _, e := range entries {
		lines := strings.Split(strings.TrimSuffix(e.Out, "\n"), "\n")
		for len(lines) < n {
			lines = append(lines, lines...)
		}
		o := output{name: e.Name, factory: entryFactory(e), root: e.Root, lines: lines[:n]}
		for _, l := range o.lines {
			o.size += len(l) + 1
		}
		total += o.size
		outs = append(outs, o)
	}
	took := make([]time.Duration, len(outs))
	for b.Loop() {
		for i, o := range outs {
			start := time.Now()
			c := o.factory.New(Options{Intent: Summary, Root: o.root})
			for _, l := range o.lines {
				c.Line(l)
			}
			c.Finish()
			took[i] += time.Since(start)
		}
	}
	var all time.Duration
	slowest := 0
	rate := func(i int) float64 { return float64(outs[i].size) * float64(b.N) / took[i].Seconds() / 1e6 }
	for i := range outs {
		all += took[i]
		if rate(i) < rate(slowest) {
			slowest = i
		}
	}
	b.ReportMetric(float64(total)*float64(b.N)/all.Seconds()/1e6, "MB/s")
	b.ReportMetric(rate(slowest), "slowest_MB/s")
	b.Logf("slowest: %s (%s), %.1f MB/s", outs[slowest].name, outs[slowest].factory.Name, rate(slowest))
}
