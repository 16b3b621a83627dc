package records

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testout"
)

// BenchmarkCapture measures capturing a 20 MB log of 500,000 lines through
// the whole pipeline (blob, analysis, tokens, stamp, store), in MB/s.
func BenchmarkCapture(b *testing.B) {
	var log bytes.Buffer
	for i := 0; log.Len() < 20<<20; i++ {
		fmt.Fprintf(&log, "2026-11-21T05:00:00Z INFO request %d served in %dms path=/api/v1/items\n", i, i%97)
		if i%5000 == 0 {
			fmt.Fprintf(&log, "pkg/handler.go:%d: error: upstream timeout\n", i%400)
		}
	}
	asShipped(b)
	s, _ := newService(b)
	b.SetBytes(int64(log.Len()))
	for b.Loop() {
		if _, err := s.Capture(context.Background(), CaptureRequest{Input: bytes.NewReader(log.Bytes())}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunPipe measures `run` of a command printing 20 MB of short,
// identical lines through a pipe, in MB/s.
func BenchmarkRunPipe(b *testing.B) {
	asShipped(b)
	s, _ := newService(b)
	const size = 20 << 20
	b.SetBytes(size)
	for b.Loop() {
		_, err := s.Run(context.Background(), RunRequest{Argv: []string{"sh", "-c",
			fmt.Sprintf("yes 'a line of build output, number 12345' | head -c %d", size)}})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCaptureKinds measures the whole capture pipeline on a real
// `go test -v` log and on Go source (every .go file of internal/ outside
// tests, as the report captures it), each repeated to 20 MB, on 20 MB of
// base64 (`run -- base64 FILE`, a dump in a test's output) and on 20 MB of
// minified JavaScript on one line (`cat bundle.min.js`); and on 300 KB of
// Go source, the size of a common test run's output, whose first 256 KiB
// are counted exactly (tokens.Counter) while the rest is analysed; and on
// 20 MB of go test -v output that never repeats, of many distinct tests
// and of tests logging as they go (Mlines/s beside MB/s). With -short,
// 2 MB of each.
func BenchmarkCaptureKinds(b *testing.B) {
	for _, k := range []struct {
		name string
		load func() ([]byte, error)
		make func(int) []byte
		size int
	}{
		{"go-test-v", readFile("../redact/testdata/go-test-v.log"), nil, 20 << 20},
		{"source", goSource(".."), nil, 20 << 20},
		{"source-300KB", goSource(".."), nil, 300 << 10},
		{"base64", nil, testout.Base64, 20 << 20},
		{"minified", nil, testout.Minified, 20 << 20},
		{"go-test-many", nil, testout.GoTestMany, 20 << 20},
		{"go-test-interleaved", nil, testout.GoTestInterleaved, 20 << 20},
	} {
		b.Run(k.name, func(b *testing.B) {
			if testing.Short() { // CI's one run of every benchmark
				k.size = min(k.size, 2<<20)
			}
			var data []byte
			if k.make != nil {
				data = k.make(k.size)
			} else {
				one, err := k.load()
				if err != nil {
					b.Fatal(err)
				}
				data = bytes.Repeat(one, k.size/len(one)+1)[:k.size]
			}
			asShipped(b)
			s, _ := newService(b)
			b.SetBytes(int64(len(data)))
			lines := bytes.Count(data, []byte("\n"))
			start := time.Now()
			for b.Loop() {
				if _, err := s.Capture(context.Background(), CaptureRequest{Input: bytes.NewReader(data)}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(lines*b.N)/time.Since(start).Seconds()/1e6, "Mlines/s")
		})
	}
}

func readFile(path string) func() ([]byte, error) {
	return func() ([]byte, error) { return os.ReadFile(path) }
}

// goSource is testout.GoSource of dir, loaded when the benchmark runs.
// It replaced one file repeated (pipeline.go), which was captured 1.7
// times as fast as the whole module (77.7 against 46.4 MB/s, in turn):
// the whole module is what the report's goal for Go source measures.
func goSource(dir string) func() ([]byte, error) {
	return func() ([]byte, error) { return testout.GoSource(dir) }
}

// asShipped runs the pipeline for the rest of a benchmark as the binary
// does, without the poisoning of batches given back that TestMain sets for
// the tests: a benchmark of capture measures what users run.
func asShipped(b *testing.B) {
	poisonGivenBack = false
	b.Cleanup(func() { poisonGivenBack = true })
}

// BenchmarkLoadStamps2000 reads the stamps of a record naming 2,000
// files from its pack and, in turn, from its rows (what a record without
// a pack costs, and what every record cost before packs): ms a read
// each, and the pack's speed-up (x_rows).
func BenchmarkLoadStamps2000(b *testing.B) {
	s, r := newService(b)
	var out strings.Builder
	for i := range 2000 {
		p := fmt.Sprintf("d%02d/f%02d.go", i/100, i%100)
		r.Write(p, fmt.Sprintf("package d // %d\n", i))
		fmt.Fprintf(&out, "%s:3: note %d\n", p, i)
	}
	ctx := context.Background()
	rec, err := s.Capture(ctx, CaptureRequest{Input: strings.NewReader(out.String())})
	if err != nil {
		b.Fatal(err)
	}
	read := func(load func(tx *store.Tx) (int, error)) time.Duration {
		start := time.Now()
		err := s.Store.View(ctx, func(tx *store.Tx) error {
			n, err := load(tx)
			if err == nil && n < 2000 {
				err = fmt.Errorf("%d stamps read", n)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	ids := []int64{rec.ID}
	var packed, rows time.Duration
	for b.Loop() {
		packed += read(func(tx *store.Tx) (int, error) {
			m, err := loadStamps(ctx, tx, ids)
			return len(m[rec.ID]), err
		})
		rows += read(func(tx *store.Tx) (int, error) {
			m, err := freshness.LoadFiles(ctx, tx, "record_files", "record_id", ids)
			return len(m[rec.ID]), err
		})
	}
	b.ReportMetric(float64(packed.Microseconds())/1e3/float64(b.N), "pack_ms")
	b.ReportMetric(float64(rows.Microseconds())/1e3/float64(b.N), "rows_ms")
	b.ReportMetric(float64(rows)/float64(packed), "x_rows")
}
