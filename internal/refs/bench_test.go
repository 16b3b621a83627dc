package refs

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkLine finds the references of every line of a real go test -v
// log and of Go source, in MB/s.
func BenchmarkLine(b *testing.B) {
	for _, k := range []struct{ name, path string }{
		{"go-test-v", "../redact/testdata/go-test-v.log"},
		{"source", "refs.go"},
	} {
		b.Run(k.name, func(b *testing.B) {
			data, err := os.ReadFile(k.path)
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
