package refs

import (
	"os"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/testout"
)

// BenchmarkLine finds the references of every line of a real go test -v
// log, of Go source, of base64 (1 MB of it, in lines of 76) and of 1 MB of
// go test -v whose test logs interleave (a file:line on most lines), in
// MB/s.
func BenchmarkLine(b *testing.B) {
	for _, k := range []struct{ name, path string }{
		{"go-test-v", "../redact/testdata/go-test-v.log"},
		{"source", "refs.go"},
		{"base64", ""},
		{"go-test-interleaved", ""},
	} {
		b.Run(k.name, func(b *testing.B) {
			data, err := os.ReadFile(k.path)
			switch k.name {
			case "base64":
				data, err = testout.Base64(1<<20), nil
			case "go-test-interleaved":
				data, err = testout.GoTestInterleaved(1<<20), nil
			}
			if err != nil {
				b.Fatal(err)
			}
			lines := strings.Split(string(data), "\n")
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				for _, l := range lines {
					Line(l)
				}
			}
		})
	}
}
