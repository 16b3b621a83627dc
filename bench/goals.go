package main

import (
	"fmt"
	"strings"
)

// goal is one target of the work the report measures, beside the figure
// this run produced for it. Whether it is met is computed from that
// figure, never typed.
type goal struct {
	what, measured string
	met            bool
}

// goal records a target and this run's figure for it.
func (r *report) goal(what string, met bool, format string, args ...any) {
	r.goals = append(r.goals, goal{what: what, measured: fmt.Sprintf(format, args...), met: met})
}

// goalsTable renders the goals in the order the sections met them.
func (r *report) goalsTable() string {
	if len(r.goals) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Goals\n\n")
	b.WriteString("Each target of the work on speed, beside the figure this run produced for it; \"met\" is\n")
	b.WriteString("computed from that figure. The sections below give every measurement and its baseline.\n\n")
	b.WriteString("| goal | this run | met |\n| --- | --- | --- |\n")
	for _, g := range r.goals {
		met := "no"
		if g.met {
			met = "yes"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", g.what, g.measured, met)
	}
	return b.String()
}

// metricValue is the median of a Go benchmark's metric, and whether the
// run reported it.
func (b *bench) metricValue(bench, unit string) (float64, bool) {
	for _, m := range b.metrics {
		if m.bench == bench && m.unit == unit {
			return m.median(), true
		}
	}
	return 0, false
}

// benchGoals states the goals the Go benchmarks measure.
func (b *bench) benchGoals() {
	if x, ok := b.metricValue("BenchmarkConcurrentRuns", "x_previous"); ok {
		runs, _ := b.metricValue("BenchmarkConcurrentRuns", "runs/s_at_8")
		prev, _ := b.metricValue("BenchmarkConcurrentRuns", "previous_runs/s_at_8")
		b.report.goal("8 processes at a time: at least 2x the aggregate runs/s of the release before this work", x >= 2,
			"%.1f against %.1f runs/s: %s", runs, prev, times(x))
	}
	if p99, ok := b.metricValue("BenchmarkConcurrentRuns", "p99_ms"); ok {
		b.report.goal("8 processes at a time: p99 of a run at most 250 ms on 2 cores", p99 <= 250, "%.0f ms", p99)
	}
	if put, ok := b.metricValue("BenchmarkSlices2000", "large_put_ms"); ok && !b.short {
		small, _ := b.metricValue("BenchmarkSlices2000", "put_ms")
		b.report.goal("a 2,000-slice repo map stored by one call in at most 2 s, in a repository of 13,000 files", put <= 2000,
			"%.0f ms; with the map's files alone, %.0f ms", put, small)
	}
	if x, ok := b.metricValue("BenchmarkSlices2000", "large_get_x_status"); ok {
		// The goal was set in a repository of 13,000 files; the map's own
		// 2,000 files alone are shown beside it.
		files := "13,000"
		if b.short {
			files = "1,300"
		}
		get, _ := b.metricValue("BenchmarkSlices2000", "large_get_ms")
		cold, _ := b.metricValue("BenchmarkSlices2000", "large_cold_ms")
		small, _ := b.metricValue("BenchmarkSlices2000", "get_x_status")
		smallGet, _ := b.metricValue("BenchmarkSlices2000", "get_ms")
		listed, _ := b.metricValue("BenchmarkSlices2000", "large_listed_get_ms")
		saved, _ := b.metricValue("BenchmarkSlices2000", "large_saved_get_ms")
		reindexed, _ := b.metricValue("BenchmarkSlices2000", "large_reindexed_get_ms")
		b.report.goal("the repo map's get with 10 changed dependencies, in a repository of "+files+" files: at most 1.2x one `git status`",
			x <= 1.2, "%.1f ms: %s (a get of an artifact never put: %.1f ms; right after a file was saved by rename: %.1f ms; "+
				"right after a changed file was staged: %.1f ms; once the path set's proof no longer holds, "+
				"listing the tree: %.1f ms); with the map's files alone, %.1f ms: %s",
			get, times(x), cold, saved, reindexed, listed, smallGet, times(small))
	}
	if wrong, ok := b.metricValue("BenchmarkTrace2000", "wrong_answers"); ok {
		checked, _ := b.metricValue("BenchmarkTrace2000", "checked_answers")
		b.report.goal("the read cache: no wrong unchanged or diff answer over a scripted session", wrong == 0,
			"%.0f wrong of %.0f checked", wrong, checked)
	}
}
