package compress

import (
	"fmt"
	"os"
	"strings"
	"testing"
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
