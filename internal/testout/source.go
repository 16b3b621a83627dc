package testout

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// GoSource returns the Go source under dir outside tests (files ending in
// .go but not _test.go, testdata included), file after file in the order
// of their paths: real source with the module's whole vocabulary, which
// the report and the capture benchmarks capture as "Go source". One file
// repeated instead repeats its few identifiers and the words that admit
// redaction's rules, and is captured far faster than real source.
func GoSource(dir string) ([]byte, error) {
	var src bytes.Buffer
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		data, err := os.ReadFile(p)
		src.Write(data)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read the Go source under %s: %w", dir, err)
	}
	if src.Len() == 0 {
		return nil, fmt.Errorf("no Go source under %s", dir)
	}
	return src.Bytes(), nil
}
