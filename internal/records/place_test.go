package records

import (
	"context"
	"fmt"
	"path"
	"slices"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testbench"
)

// listed is an elsewhere whose listing is done: files.
func listed(files []string) *elsewhere {
	e := &elsewhere{cancel: func() {}, done: make(chan struct{}), files: files}
	close(e.done)
	return e
}

// place finds each name among the listed files it is, or that end with it
// after a slash, cleaned first, and names more than maxElsewhere files
// end with are over.
func TestPlaceMatchesByEnding(t *testing.T) {
	files := []string{"a.go", "pkg/a.go", "pkg/sub/a.go", "other/pkg/a.go", "xa.go", "pkg/b_test.go", "cmd/tool/main.go"}
	for i := range maxElsewhere + 1 {
		files = append(files, fmt.Sprintf("gen/%02d/doc.go", i))
	}
	s := &Service{}
	for _, c := range []struct {
		names       []string
		found, over []string
	}{
		{names: []string{"a.go"}, found: []string{"a.go", "pkg/a.go", "pkg/sub/a.go", "other/pkg/a.go"}},
		{names: []string{"pkg/a.go"}, found: []string{"pkg/a.go", "other/pkg/a.go"}},
		{names: []string{"./pkg//a.go"}, found: []string{"pkg/a.go", "other/pkg/a.go"}},
		{names: []string{"sub/a.go", "b_test.go"}, found: []string{"pkg/sub/a.go", "pkg/b_test.go"}},
		{names: []string{"tool/main.go", "main.go"}, found: []string{"cmd/tool/main.go", "cmd/tool/main.go"}},
		{names: []string{"a.go/"}, found: []string{"a.go", "pkg/a.go", "pkg/sub/a.go", "other/pkg/a.go"}},
		{names: []string{"missing.go", "kg/a.go"}},
		{names: []string{".", "..", "../a.go", "x/../../a.go"}},
		{names: []string{"doc.go", "01/doc.go"}, found: []string{"gen/01/doc.go"}, over: []string{"doc.go"}},
	} {
		found, over := s.place(context.Background(), listed(files), c.names)
		if !slices.Equal(found, c.found) || !slices.Equal(over, c.over) {
			t.Errorf("place(%q) = %q, over %q; want %q, over %q", c.names, found, over, c.found, c.over)
		}
	}
}

// BenchmarkPlace100k places the five names a failing test's output names
// outside its folder among the 100,000 files of a large work tree and, in
// turn, indexes every file by its base name (what place did before): ms
// each, and x_index_all, the ratio.
func BenchmarkPlace100k(b *testing.B) {
	files := make([]string, 100_000)
	for i := range files {
		files[i] = fmt.Sprintf("pkg%03d/sub%02d/file%06d.go", i/10000, i/100%100, i)
	}
	names := []string{"file000042.go", "sub07/file050707.go", "helper_test.go", "main.go", "pkg009/sub99/file099999.go"}
	s := &Service{}
	var placed, indexed []time.Duration
	for b.Loop() {
		start := time.Now()
		if found, _ := s.place(context.Background(), listed(files), names); len(found) != 3 {
			b.Fatalf("found %q", found)
		}
		placed = append(placed, time.Since(start))
		start = time.Now()
		byBase := map[string][]string{}
		for _, f := range files {
			byBase[path.Base(f)] = append(byBase[path.Base(f)], f)
		}
		if len(byBase) != len(files) {
			b.Fatalf("%d base names", len(byBase))
		}
		indexed = append(indexed, time.Since(start))
	}
	testbench.MedianMS(b, placed, "place_ms")
	testbench.MedianMS(b, indexed, "index_all_ms")
	testbench.Ratio(b, indexed, placed, "x_index_all")
}
