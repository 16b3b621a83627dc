package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// report is the Markdown being written, with its charts.
type report struct {
	b         *bench
	machine   []string
	sections  []*section
	charts    map[string]*plot.Plot // file name → chart
	headlines []string              // the README's summary, one line each
	goals     []goal
}

// headline adds a line to the README's summary.
func (r *report) headline(format string, args ...any) {
	r.headlines = append(r.headlines, fmt.Sprintf(format, args...))
}

// extendHeadline adds to the summary's last line (or starts one).
func (r *report) extendHeadline(format string, args ...any) {
	if len(r.headlines) == 0 {
		r.headline(format, args...)
		return
	}
	r.headlines[len(r.headlines)-1] += " " + fmt.Sprintf(format, args...)
}

type section struct {
	title, intro string
	blocks       []string
}

func newReport(b *bench) *report {
	return &report{b: b, machine: machineInfo(b), charts: map[string]*plot.Plot{}}
}

func (r *report) section(title, intro string) *section {
	s := &section{title: title, intro: intro}
	r.sections = append(r.sections, s)
	return s
}

// table adds a Markdown table.
func (s *section) table(head []string, rows [][]string) {
	var b strings.Builder
	b.WriteString("| " + strings.Join(head, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" --- |", len(head)) + "\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	s.blocks = append(s.blocks, b.String())
}

func (s *section) note(format string, args ...any) {
	s.blocks = append(s.blocks, fmt.Sprintf(format, args...)+"\n")
}

// series is one line of a chart: x values and the median y in ms.
type series struct {
	name string
	x    []float64
	y    []sample
}

// chart draws series (y: median milliseconds, log-scaled when they span
// more than two orders of magnitude) and links it from the section.
func (r *report) chart(s *section, file, title, xlabel string, logX bool, lines ...series) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = "median time (ms)"
	lo, hi := 1e18, 0.0
	var args []any
	for _, l := range lines {
		pts := make(plotter.XYs, len(l.x))
		for i := range l.x {
			v := float64(l.y[i].median()) / float64(time.Millisecond)
			pts[i] = plotter.XY{X: l.x[i], Y: v}
			lo, hi = min(lo, v), max(hi, v)
		}
		args = append(args, l.name, pts)
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return err
	}
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if lo > 0 && hi/lo > 100 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Legend.Top = true
	p.Legend.Left = true
	r.charts[file] = p
	s.blocks = append(s.blocks, fmt.Sprintf("![%s](bench/%s)\n", title, file))
	return nil
}

func (r *report) write(path string) error {
	dir := filepath.Join(filepath.Dir(path), "bench")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, p := range r.charts {
		if err := p.Save(7*vg.Inch, 4*vg.Inch, filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("chart %s: %w", name, err)
		}
	}
	var b strings.Builder
	mode := "full"
	cmd := "go run ./bench"
	if r.b.short {
		mode, cmd = "short (small inputs)", "go run ./bench -short"
	}
	fmt.Fprintf(&b, "# freshctx benchmarks\n\n")
	fmt.Fprintf(&b, "Written by `%s` (%s mode) on %s in %s. Every figure below comes from that run: each\n",
		cmd, mode, r.b.started.UTC().Format("2006-01-02 15:04 MST"), time.Since(r.b.started).Round(time.Second))
	fmt.Fprintf(&b, "measurement was repeated %d times after one warm-up and is given as its median and\n", r.b.repeats)
	b.WriteString("(min–max), beside a baseline measured in the same run on the same workspace and the ratio\n")
	b.WriteString("of the two medians. The machine is shared and noisy: read ratios, not single figures.\n\n")
	b.WriteString("## Machine\n\n")
	for _, m := range r.machine {
		b.WriteString("- " + m + "\n")
	}
	b.WriteString(r.goalsTable())
	for _, s := range r.sections {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", s.title, s.intro)
		for _, blk := range s.blocks {
			b.WriteString("\n" + blk)
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// The README's summary sits between these markers; a full run rewrites it.
const (
	summaryStart = "<!-- bench:summary (written by go run ./bench) -->"
	summaryEnd   = "<!-- /bench:summary -->"
)

// writeSummary replaces the README's summary with the headlines.
func (r *report) writeSummary(readme string) error {
	b, err := os.ReadFile(readme)
	if err != nil {
		return err
	}
	text := string(b)
	i, j := strings.Index(text, summaryStart), strings.Index(text, summaryEnd)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %s … %s block", readme, summaryStart, summaryEnd)
	}
	var sum strings.Builder
	sum.WriteString(summaryStart + "\n")
	for _, h := range r.headlines {
		sum.WriteString("- " + h + "\n")
	}
	if r.b.source != "" {
		fmt.Fprintf(&sum, "- Measured on %s, %s.\n", r.b.started.UTC().Format("2006-01-02"), r.b.source)
	}
	text = text[:i] + sum.String() + text[j:]
	return os.WriteFile(readme, []byte(text), 0o644)
}
