// Package testbench is what freshctx's benchmarks share to report a
// measurement beside a baseline timed in turn with it: medians, not means,
// since the machines they run on are shared and noisy, and ratios of the
// medians, which a drift of the machine's speed moves far less than either
// figure.
package testbench

import (
	"slices"
	"testing"
	"time"
)

// Median is the median of ds (of an even count, the upper of the middle
// two); ds is left as it is. It panics when ds is empty: a benchmark that
// timed nothing has nothing to report.
func Median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// MS reports d in milliseconds as the metric unit.
func MS(b *testing.B, d time.Duration, unit string) {
	b.Helper()
	b.ReportMetric(float64(d.Microseconds())/1000, unit)
}

// MedianMS reports the median of ds in milliseconds as the metric unit.
func MedianMS(b *testing.B, ds []time.Duration, unit string) {
	b.Helper()
	MS(b, Median(ds), unit)
}

// Ratio reports the median of ds over the median of base, timed in turn
// with it, as the metric unit.
func Ratio(b *testing.B, ds, base []time.Duration, unit string) {
	b.Helper()
	b.ReportMetric(float64(Median(ds))/float64(Median(base)), unit)
}
