package scope

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testbench"
)

// BenchmarkWalkLeaving2000 times the walk a record's check makes of its
// input scope, a tree of 10,000 files in 100 folders (2,000 in 20 with
// -short), when the record names 2,000 of them (400): leaving those to
// the check, which stats them anyway, against the walk of all of them, in
// turn. x_whole is the ratio.
func BenchmarkWalkLeaving2000(b *testing.B) {
	files, named := 10_000, 2_000
	if testing.Short() {
		files, named = 2_000, 400
	}
	root := b.TempDir()
	leave := map[string]bool{}
	for i := range files {
		rel := fmt.Sprintf("src/d%02d/f%05d.go", i%(files/100), i)
		p := filepath.Join(root, filepath.FromSlash(rel))
		if i < files/100 {
			os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err := os.WriteFile(p, []byte("package d\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		if i%(files/named) == 0 {
			leave[rel] = true
		}
	}
	since := time.Now().Add(time.Hour) // nothing changed since: every file is stat'ed and passed over
	var leaving, whole []time.Duration
	for b.Loop() {
		start := time.Now()
		st := WalkLeaving(root, []string{"**"}, since, func(rel string) bool { return leave[rel] })
		st.Fill(func(string) bool { return false })
		leaving = append(leaving, time.Since(start))
		if len(st.Left()) != named {
			b.Fatalf("left %d files, want %d", len(st.Left()), named)
		}
		start = time.Now()
		Walk(root, []string{"**"}, since)
		whole = append(whole, time.Since(start))
	}
	testbench.MedianMS(b, leaving, "leaving_ms")
	testbench.MedianMS(b, whole, "whole_ms")
	testbench.Ratio(b, whole, leaving, "x_whole")
}
