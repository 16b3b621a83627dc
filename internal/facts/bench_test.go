package facts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkLine finds the facts of every line of a real `go test -v` log
// and of the module's own Go source (not its tests), as a capture does.
func BenchmarkLine(b *testing.B) {
	source := func() string {
		files, err := filepath.Glob("../*/*.go")
		if err != nil {
			b.Fatal(err)
		}
		var all strings.Builder
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			all.Write(data)
		}
		return all.String()
	}
	log := func() string {
		data, err := os.ReadFile("../redact/testdata/go-test-v.log")
		if err != nil {
			b.Fatal(err)
		}
		return string(data)
	}
	for _, c := range []struct {
		name string
		text func() string
	}{{"source", source}, {"go-test-v", log}} {
		b.Run(c.name, func(b *testing.B) {
			text := c.text()
			lines := strings.Split(text, "\n")
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				for _, l := range lines {
					Line(l)
				}
			}
		})
	}
}
