package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/freshctx/freshctx/internal/testout"
)

const captureIntro = "`freshctx capture < FILE` (redaction, compression, facts, references, token counts and\n" +
	"the compressed raw blob) against `cat FILE` and `zstd -c FILE` of the same bytes, on a real\n" +
	"`go test -v` log, on Go source and on minified JavaScript (1 MB lines, as bundles are),\n" +
	"repeated to each size, and on `go test -v` output made at each size that never repeats (many\n" +
	"distinct tests; tests that log between their RUN and PASS lines); the peak resident memory of the\n" +
	"capture; and `freshctx run -- cat FILE`, whose record reports the command's own duration:\n" +
	"output is drained at pipe speed and analysed behind it. The goals: analysis at 100 MB/s or\n" +
	"more (or 2 million lines/s where lines are short), at most 64 MB of memory for 1 GB, the command\n" +
	"never slowed."

func (b *bench) capture(ctx context.Context, sec *section) error {
	sizes := []int64{5 << 20, 20 << 20, 100 << 20}
	if b.short {
		sizes = []int64{2 << 20, 5 << 20}
	}
	dir := filepath.Join(b.tmp, "capture")
	if err := b.makeRepo(ctx, dir, 100, 1); err != nil {
		return err
	}
	inputs, err := b.captureInputs()
	if err != nil {
		return err
	}
	var rows [][]string
	for _, in := range inputs {
		var xs []float64
		var capS, catS, zstdS []sample
		for _, size := range sizes {
			file := filepath.Join(b.tmp, fmt.Sprintf("%s-%d", in.name, size))
			data := in.at(size)
			lines := bytes.Count(data, []byte("\n"))
			if err := os.WriteFile(file, data, 0o644); err != nil {
				return err
			}
			b.progress(fmt.Sprintf("  %s, %d MB", in.name, size>>20))
			var rss int64
			capture, err := b.repeat(func(int) (time.Duration, error) {
				c := b.cmd(ctx, dir, b.bin, "capture")
				f, err := os.Open(file)
				if err != nil {
					return 0, err
				}
				defer f.Close()
				c.Stdin = f
				d, r, err := b.peak(c)
				rss = max(rss, r)
				return d, err
			})
			if err != nil {
				return err
			}
			cat, err := b.timeCmd(func(int) *exec.Cmd { return b.cmd(ctx, dir, "sh", "-c", "cat \"$0\" > /dev/null", file) })
			if err != nil {
				return err
			}
			zstd, err := b.timeCmd(func(int) *exec.Cmd { return b.cmd(ctx, dir, "sh", "-c", "zstd -q -c \"$0\" > /dev/null", file) })
			if err != nil {
				return err
			}
			own, wall, err := b.runCat(ctx, dir, file)
			if err != nil {
				return err
			}
			if size == sizes[len(sizes)-1] && in.goal {
				mbs := float64(size) / 1e6 / capture.median().Seconds()
				lps := float64(lines) / capture.median().Seconds()
				what := fmt.Sprintf("capture of %d MB of %s at 100 MB/s or more", size>>20, in.name)
				if in.shortLines {
					what += ", or 2 million lines/s"
				}
				b.report.goal(what, mbs >= 100 || in.shortLines && lps >= 2e6, "%s, %.2f million lines/s", rate(size, capture), lps/1e6)
			}
			if in.slug == "go-test-log" && size == sizes[len(sizes)-1] {
				b.report.headline("Capturing a %d MB `go test -v` log: %s against %s for `zstd -c`, peak memory %d MB; the command's own duration is recorded (%s of the run's %s).",
					size>>20, rate(size, capture), rate(size, zstd), rss>>20, ms(own), ms(wall))
			}
			rows = append(rows, []string{in.name, fmt.Sprintf("%d MB", size>>20), rate(size, capture),
				fmt.Sprintf("%d MB", rss>>20), rate(size, cat), rate(size, zstd), ratio(capture, zstd),
				fmt.Sprintf("%s of %s", ms(own), ms(wall))})
			xs = append(xs, float64(size>>20))
			capS, catS, zstdS = append(capS, capture), append(catS, cat), append(zstdS, zstd)
			os.Remove(file)
		}
		err := b.report.chart(sec, "capture-"+in.slug+".svg", "Capturing a "+in.name+" of growing size", "MB", false,
			series{"freshctx capture", xs, capS}, series{"zstd -c", xs, zstdS}, series{"cat", xs, catS})
		if err != nil {
			return err
		}
	}
	sec.table([]string{"input", "size", "freshctx capture", "peak memory", "cat", "zstd -c", "capture ÷ zstd",
		"run -- cat: the command's duration as recorded, of the run's wall time"}, rows)
	if b.short {
		return nil
	}
	b.progress("  1 GB of the go test -v log, once, for memory")
	d, rss, err := b.captureStream(ctx, dir, inputs[0].data, 1<<30)
	if err != nil {
		return err
	}
	sec.note("One capture of 1 GiB of the `go test -v` log, streamed from this program: %s, %s, peak memory %d MB.",
		ms(d), rate(1<<30, sample{d}), rss>>20)
	b.report.goal("peak memory of a capture of 1 GiB at most 64 MB", rss <= 64<<20, "%d MB", rss>>20)
	return nil
}

// captureStream captures size bytes of data, repeated, written to the
// capture's stdin as fast as it reads them.
func (b *bench) captureStream(ctx context.Context, dir string, data []byte, size int64) (time.Duration, int64, error) {
	c := b.cmd(ctx, dir, b.bin, "capture")
	in, err := c.StdinPipe()
	if err != nil {
		return 0, 0, err
	}
	go func() {
		defer in.Close()
		for left := size; left > 0; {
			n := min(left, int64(len(data)))
			if _, err := in.Write(data[:n]); err != nil {
				return
			}
			left -= n
		}
	}()
	return b.peak(c)
}

type captureInput struct {
	name, slug string
	data       []byte             // repeated to each size
	make       func(n int) []byte // or made at each size, never repeating
	goal       bool               // the 100 MB/s goal is set for it
	shortLines bool               // or 2 million lines/s, its lines being short
}

// at is the input at size bytes.
func (in captureInput) at(size int64) []byte {
	if in.make != nil {
		return in.make(int(size))[:size]
	}
	return repeatTo(in.data, size)
}

// captureInputs are a real go test -v log (of freshctx's own tests),
// repeated, two made at each size that never repeat (many distinct tests;
// tests logging as they go), the module's Go source, and minified
// JavaScript in lines of 1 MB (no goal is set for it: it shows what long
// lines cost).
func (b *bench) captureInputs() ([]captureInput, error) {
	log, err := os.ReadFile(filepath.Join(b.root, "internal/redact/testdata/go-test-v.log"))
	if err != nil {
		return nil, err
	}
	src, err := testout.GoSource(filepath.Join(b.root, "internal"))
	if err != nil {
		return nil, err
	}
	return []captureInput{
		{name: "go test -v log", slug: "go-test-log", data: log, goal: true},
		{name: "go test -v of many distinct tests", slug: "go-test-many", make: testout.GoTestMany, goal: true, shortLines: true},
		{name: "go test -v with interleaved test logs", slug: "go-test-interleaved", make: testout.GoTestInterleaved, goal: true, shortLines: true},
		{name: "Go source", slug: "go-source", data: src, goal: true},
		{name: "minified JavaScript", slug: "minified-js", data: testout.Minified(1 << 20)},
	}, nil
}

func repeatTo(data []byte, size int64) []byte {
	out := bytes.Repeat(data, int(size)/len(data)+1)
	return out[:size]
}

// runCat runs freshctx run -- cat FILE and returns the duration the record
// gives the command and the run's wall time.
func (b *bench) runCat(ctx context.Context, dir, file string) (own, wall time.Duration, err error) {
	start := time.Now()
	out, err := b.must(ctx, dir, b.bin, "run", "--json", "--", "cat", file)
	wall = time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	var rec struct {
		DurationMS int64 `json:"duration_ms"`
	}
	if err := json.Unmarshal(out, &rec); err != nil {
		return 0, 0, fmt.Errorf("run --json: %w", err)
	}
	return time.Duration(rec.DurationMS) * time.Millisecond, wall, nil
}
