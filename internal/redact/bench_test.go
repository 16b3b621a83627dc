package redact

import (
	"bytes"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testbench"
	"github.com/freshctx/freshctx/internal/testout"
)

// BenchmarkRedact measures redaction throughput on a real `go test -v` log
// (and on the compressor corpus's outputs) against the baseline of only
// splitting the same bytes into lines, measured in the same run. The goal
// is at least 100 MB/s on the log.
func BenchmarkRedact(b *testing.B) {
	data := goTestLog(b)
	rules() // built once per process, not per run
	b.Run("split-baseline", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			split(b, data)
		}
	})
	b.Run("go-test-v", func(b *testing.B) {
		start := time.Now()
		split(b, data)
		baseline := time.Since(start)
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var r Redactor
			for line := range bytes.Lines(data) {
				r.Line(bytes.TrimSuffix(line, []byte("\n")))
			}
		}
		b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(baseline), "x_split")
	})
}

// BenchmarkRedactLongLine measures redaction of minified JavaScript on one
// line, cut into pieces as a capture cuts a line too long to wait for its
// end and redacted, as the capture does, knowing the bytes around each, with the rules that have a reach running on windows around their
// keywords and, as the baseline in the same run, on all of each piece.
func BenchmarkRedactLongLine(b *testing.B) {
	size := 8 << 20
	if testing.Short() {
		size = 1 << 20
	}
	ps := longPieces(testout.Minified(size))
	rules()
	for _, c := range []struct {
		name string
		from int
	}{{"windows", windowFrom}, {"whole-pieces", 1 << 30}} {
		b.Run(c.name, func(b *testing.B) {
			defer func(old int) { windowFrom = old }(windowFrom)
			windowFrom = c.from
			b.SetBytes(int64(size))
			for b.Loop() {
				var r Redactor
				for i, p := range ps {
					var before, after []byte
					if i > 0 {
						before = ps[i-1]
					}
					if i+1 < len(ps) {
						after = ps[i+1]
					}
					r.Piece(before, p, after)
				}
			}
		})
	}
}

// longPieces cuts one long line as the capture pipeline does: at most
// 64 KiB, ending where SafeCut says.
func longPieces(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		p := data[:min(len(data), 64<<10)]
		if len(p) == 64<<10 {
			p = p[:SafeCut(p)]
		}
		out = append(out, p)
		data = data[len(p):]
	}
	return out
}

// split is the baseline: the same bytes, only cut into lines.
func split(b *testing.B, data []byte) {
	n := 0
	for line := range bytes.Lines(data) {
		n += len(bytes.TrimSuffix(line, []byte("\n")))
	}
	if n == 0 {
		b.Fatal("no lines")
	}
}

// BenchmarkRulesBuild is the one-time cost of building the ruleset: its
// keyword index and gates (a rule is translated when a line first passes
// them, BenchmarkFirstKeywordLine), from the heads compiled in; and in turn
// the build as it was before, its heads read from gitleaks' TOML
// (parse_ms, x_parse: what compiling them in saves every process whose
// output holds a keyword), and the decoding of gitleaks' whole
// configuration, with which a build started before that (decode_ms,
// x_decode).
func BenchmarkRulesBuild(b *testing.B) {
	var built, parsed, decoded time.Duration
	for b.Loop() {
		fullConfig = sync.OnceValues(defaultViperConfig) // as in a new process
		start := time.Now()
		if _, err := build(); err != nil {
			b.Fatal(err)
		}
		built += time.Since(start)
		start = time.Now()
		heads, err := parseRuleHeads()
		if err != nil || len(heads) != len(defaultRuleHeads) {
			b.Fatalf("%d heads parsed: %v", len(heads), err)
		}
		if _, err := build(); err != nil {
			b.Fatal(err)
		}
		parsed += time.Since(start)
		start = time.Now()
		if _, err := defaultViperConfig(); err != nil {
			b.Fatal(err)
		}
		decoded += time.Since(start)
	}
	b.ReportMetric(float64(built.Microseconds())/1000/float64(b.N), "build_ms")
	b.ReportMetric(float64(parsed.Microseconds())/1000/float64(b.N), "parse_ms")
	b.ReportMetric(float64(parsed)/float64(built), "x_parse")
	b.ReportMetric(float64(decoded.Microseconds())/1000/float64(b.N), "decode_ms")
	b.ReportMetric(float64(decoded)/float64(built), "x_decode")
}

// BenchmarkFirstKeywordLine is what a process pays for its first line
// that holds a keyword: building the ruleset and translating the rules the
// line passes the gates of, for a line with a secret (found) and one of
// Go source (its rules find nothing).
func BenchmarkFirstKeywordLine(b *testing.B) {
	for _, c := range []struct{ name, line string }{
		{"secret", `export API_KEY="Zk2Lm9Qp7Rt4Vw8Xy3Bn6Jc5Hd1Fg0Sa" # the service token`},
		{"source", `	token, err := auth.Parse(secret, key) // password: see the api docs`},
	} {
		b.Run(c.name, func(b *testing.B) {
			found := 0
			for b.Loop() {
				fullConfig = sync.OnceValues(defaultViperConfig) // as in a new process
				e, err := build()
				if err != nil {
					b.Fatal(err)
				}
				found += len(findAll(e, []byte(c.line)))
			}
			b.ReportMetric(float64(found)/float64(b.N), "secrets/op")
		})
	}
}

// findAll runs every rule whose keyword and gate line passes in e.
func findAll(e *engine, line []byte) []find {
	var s scratch
	s.hits(e, line, false) // sizes the scratch
	hit := s.hits(e, line, false)
	if hit == nil {
		return nil
	}
	var fs []find
	for _, i := range hit.gitleaks {
		fs = e.gitleaks[i].find(line, nil, fs)
	}
	return fs
}

// BenchmarkKeywordScan is the prefilter alone, on the same log.
func BenchmarkKeywordScan(b *testing.B) {
	data := goTestLog(b)
	e := rules()
	b.SetBytes(int64(len(data)))
	n := 0
	for b.Loop() {
		for line := range bytes.Lines(data) {
			e.keywords.scan(line, func(int, int, int) { n++ })
		}
	}
}

// goTestLog is a real `go test -v` log, repeated to a few megabytes.
func goTestLog(b *testing.B) []byte {
	log, err := os.ReadFile("testdata/go-test-v.log")
	if err != nil {
		b.Fatal(err)
	}
	reps := 100
	if testing.Short() {
		reps = 2
	}
	return bytes.Repeat(log, reps)
}

// BenchmarkPrefilterWays is what mayHold chooses between for the first
// short lines of a process: building the prefilter's index, and searching
// a line word by word without it, for a command line of 4 bytes (`true`),
// of 37 and of 256. It reports µs each (median), and how many bytes
// searched word by word cost what one build does.
func BenchmarkPrefilterWays(b *testing.B) {
	lines := map[string][]byte{
		"4":   []byte("true"),
		"37":  []byte("go test ./... -run TestFoo -count=1"),
		"256": bytes.Repeat([]byte("some ordinary command line words "), 8)[:directLine],
	}
	times := map[string][]time.Duration{}
	for b.Loop() {
		start := time.Now()
		newKeywordIndex(prefilterList)
		times["build"] = append(times["build"], time.Since(start))
		for n, line := range lines {
			start := time.Now()
			if holdsWord(line) {
				b.Fatalf("%q holds a word", line)
			}
			times[n] = append(times[n], time.Since(start))
		}
	}
	us := func(n string) float64 { return float64(testbench.Median(times[n]).Nanoseconds()) / 1e3 }
	b.ReportMetric(us("build"), "us_build")
	for _, n := range []string{"4", "37", "256"} {
		b.ReportMetric(us(n), "us_words_"+n)
	}
	b.ReportMetric(us("build")/us("256")*directLine, "bytes_a_build")
}
