package scope

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// BenchmarkWalkSmallFolders walks a tree laid out as a real repository's
// is, five files a folder in folders three deep (13,000 files in 2,744
// folders; 2,000 with -short), and reads every folder of it as the walk
// does (readFolder) and, in turn, through os.Open, which asks the runtime's
// poller about each folder. x_os_open is the ratio of the two reads; walk_ms
// is the whole walk, for scale.
func BenchmarkWalkSmallFolders(b *testing.B) {
	files := 13_000
	if testing.Short() {
		files = 2_000
	}
	root := b.TempDir()
	folders := map[string]bool{root: true}
	for i := range files {
		f := i / 5
		p := filepath.Join(root, fmt.Sprintf("p%d/q%d/r%d/f%d.go", f/200, f/14%14, f%14, i))
		for d := filepath.Dir(p); !folders[d]; d = filepath.Dir(d) {
			folders[d] = true
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package d\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	readAll := func(read func(string) ([]fs.DirEntry, *os.File, error)) time.Duration {
		start := time.Now()
		for d := range folders {
			list, f, err := read(d)
			if err != nil || len(list) == 0 {
				b.Fatalf("%s: %d entries, %v", d, len(list), err)
			}
			f.Close()
		}
		return time.Since(start)
	}
	viaOpen := func(abs string) ([]fs.DirEntry, *os.File, error) {
		f, err := os.Open(abs)
		if err != nil {
			return nil, nil, err
		}
		list, err := f.ReadDir(-1)
		slices.SortFunc(list, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		return list, f, err
	}
	since := time.Now().Add(time.Hour)
	var walks, ours, open []time.Duration
	for b.Loop() {
		start := time.Now()
		Walk(root, []string{"**"}, since)
		walks = append(walks, time.Since(start))
		ours = append(ours, readAll(readFolder))
		open = append(open, readAll(viaOpen))
	}
	b.ReportMetric(float64(len(folders)), "folders")
	testbench.MedianMS(b, walks, "walk_ms")
	testbench.MedianMS(b, ours, "folders_ms")
	testbench.MedianMS(b, open, "os_open_ms")
	testbench.Ratio(b, open, ours, "x_os_open")
}
