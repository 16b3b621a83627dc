package main

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sample is the durations of one measurement's repeats.
type sample []time.Duration

func (s sample) sorted() sample {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

func (s sample) median() time.Duration { c := s.sorted(); return c[len(c)/2] }
func (s sample) min() time.Duration    { return slices.Min(s) }
func (s sample) max() time.Duration    { return slices.Max(s) }

// repeat runs f b.repeats times after one warm-up run that is not counted.
func (b *bench) repeat(f func(i int) (time.Duration, error)) (sample, error) {
	if _, err := f(-1); err != nil {
		return nil, err
	}
	return runs(b.repeats, f)
}

// turns runs each of fs once per round, one after another, b.repeats
// rounds after one to warm up, so a drift of the machine's speed falls on
// every one alike; fs[i] is told the round (-1: the warm-up).
func (b *bench) turns(fs ...func(round int) (time.Duration, error)) ([]sample, error) {
	return turnsOf(b.repeats, fs...)
}

// turnsOf is turns over the given number of rounds.
func turnsOf(rounds int, fs ...func(round int) (time.Duration, error)) ([]sample, error) {
	out := make([]sample, len(fs))
	for round := -1; round < rounds; round++ {
		for i, f := range fs {
			d, err := f(round)
			if err != nil {
				return nil, err
			}
			if round >= 0 {
				out[i] = append(out[i], d)
			}
		}
	}
	return out, nil
}

// swappedTurns is turns over the given number of rounds with two
// changes: prepare runs untimed at the start of every round (the warm-up's
// too), and the first two measurements change places every other round.
// Where the first to run after prepare pays for something the second then
// finds done (a stat cache written, pages read in), each pays it in half
// the rounds, and a ratio of the two says nothing of their order.
func swappedTurns(rounds int, prepare func(round int) error, fs ...func(round int) (time.Duration, error)) ([]sample, error) {
	out := make([]sample, len(fs))
	order := make([]int, len(fs))
	for round := -1; round < rounds; round++ {
		if err := prepare(round); err != nil {
			return nil, err
		}
		for i := range order {
			order[i] = i
		}
		if len(order) > 1 && round%2 != 0 {
			order[0], order[1] = 1, 0
		}
		for _, i := range order {
			d, err := fs[i](round)
			if err != nil {
				return nil, err
			}
			if round >= 0 {
				out[i] = append(out[i], d)
			}
		}
	}
	return out, nil
}

// runs runs f n times and keeps what each took.
func runs(n int, f func(i int) (time.Duration, error)) (sample, error) {
	out := make(sample, 0, n)
	for i := range n {
		d, err := f(i)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// repeatWithin is repeat for a slow baseline (seconds a run): after the
// warm-up it runs only as many times as fit in budget; a warm-up that alone
// takes longer than budget is the one measurement. The count of runs kept
// is returned for the report to say.
func (b *bench) repeatWithin(budget time.Duration, f func(i int) (time.Duration, error)) (sample, int, error) {
	warm, err := f(-1)
	if err != nil {
		return nil, 0, err
	}
	if warm >= budget {
		return sample{warm}, 1, nil
	}
	n := b.repeats
	if warm > 0 {
		n = max(1, min(n, int(budget/warm)))
	}
	out, err := runs(n, f)
	return out, n, err
}

// timed runs a command and returns its wall time.
func (b *bench) timed(c *exec.Cmd) (time.Duration, error) {
	d, _, err := b.run(c, false)
	return d, err
}

// peak runs a command and returns its wall time and peak resident memory,
// from /usr/bin/time when there is one (0 without): the rusage of a child
// this process starts counts this process's own memory, which the child
// shares between fork and exec.
func (b *bench) peak(c *exec.Cmd) (time.Duration, int64, error) {
	return b.run(c, true)
}

func (b *bench) run(c *exec.Cmd, peak bool) (time.Duration, int64, error) {
	peakFile := ""
	if _, err := os.Stat("/usr/bin/time"); err == nil && peak {
		f, err := os.CreateTemp(b.tmp, "peak-")
		if err != nil {
			return 0, 0, err
		}
		f.Close()
		peakFile = f.Name()
		defer os.Remove(peakFile)
		c.Args = append([]string{"/usr/bin/time", "-f", "%M", "-o", peakFile}, c.Args...)
		c.Path = "/usr/bin/time"
	}
	start := time.Now()
	out, err := c.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		return d, 0, fmt.Errorf("%s: %v\n%s", c.String(), err, tail(out))
	}
	var rss int64
	if peakFile != "" {
		if b, err := os.ReadFile(peakFile); err == nil {
			kb, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			rss = kb * 1024
		}
	}
	return d, rss, nil
}

// timeCmd repeats a command made fresh by mk for each run.
func (b *bench) timeCmd(mk func(i int) *exec.Cmd) (sample, error) {
	return b.repeat(func(i int) (time.Duration, error) {
		return b.timed(mk(i))
	})
}

func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// ms formats a duration in milliseconds with three significant digits.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.2f ms", v)
}

// spread is "median (min–max)".
func spread(s sample) string {
	return fmt.Sprintf("%s (%s–%s)", ms(s.median()), trimUnit(ms(s.min())), ms(s.max()))
}

func trimUnit(s string) string { return s[:len(s)-3] }

// ratio is the median of s over the median of base, as "2.1x".
func ratio(s, base sample) string {
	return times(float64(s.median()) / float64(base.median()))
}

// times prints a ratio with two decimals, or two significant digits below
// 0.1, where two decimals would print a small ratio as 0.00x.
func times(r float64) string {
	if r < 0.1 {
		return fmt.Sprintf("%.2gx", r)
	}
	return fmt.Sprintf("%.2fx", r)
}

// rate is bytes per second at the sample's median, min and max, in MB/s.
func rate(bytes int64, s sample) string {
	mbs := func(d time.Duration) float64 { return float64(bytes) / 1e6 / d.Seconds() }
	return fmt.Sprintf("%.0f MB/s (%.0f–%.0f)", mbs(s.median()), mbs(s.max()), mbs(s.min()))
}
