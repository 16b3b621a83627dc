package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

const freshnessIntro = `How long it takes to say whether a record is still true, for a record naming N files
(` + "`freshctx show ID`" + `, which checks every file it names and prints the digest), against one
` + "`git status --porcelain`" + ` of the whole tree, one ` + "`git status --porcelain -- FILE`" + ` per file (seed 000's way,
N processes) and ` + "`sha256sum`" + ` of the N files (one process). Nothing changed: every answer must be
fresh, and the run fails if one is not. ` + "`show`" + ` and the whole-tree status run in turn, round after round.`

// perFileBudget bounds the time spent repeating the per-file baseline.
const perFileBudget = 20 * time.Second

func (b *bench) freshness(ctx context.Context, sec *section) error {
	files, ns := 10_000, []int{10, 200, 2_000}
	if b.short {
		files, ns = 1_000, []int{10, 200}
	}
	dir := filepath.Join(b.tmp, "freshness")
	b.progress(fmt.Sprintf("  a repository of %d files", files))
	if err := b.makeRepo(ctx, dir, files, 1); err != nil {
		return err
	}
	var rows [][]string
	var xs []float64
	var showS, statusS, perFileS, shaS []sample
	var fewer []string // sizes whose per-file baseline was repeated fewer times
	for _, n := range ns {
		paths := make([]string, n)
		var out strings.Builder
		for i := range n {
			paths[i] = repoPath(i * (files / n))
			fmt.Fprintf(&out, "%s:3: note %d\n", paths[i], i)
		}
		c := b.cmd(ctx, dir, b.bin, "capture", "--json")
		c.Stdin = strings.NewReader(out.String())
		js, err := c.Output()
		if err != nil {
			return fmt.Errorf("capture: %w", err)
		}
		var rec struct {
			ID    int64 `json:"id"`
			Files []any `json:"files"`
		}
		if err := json.Unmarshal(js, &rec); err != nil || len(rec.Files) != n {
			return fmt.Errorf("capture of %d references kept %d files (%v)", n, len(rec.Files), err)
		}
		// show and the whole-tree status it is held to run in turn.
		both, err := b.turns(func(int) (time.Duration, error) {
			start := time.Now()
			js, err := b.must(ctx, dir, b.bin, "show", fmt.Sprint(rec.ID), "--json")
			d := time.Since(start)
			if err != nil {
				return 0, err
			}
			var got struct {
				Freshness struct{ Label string } `json:"freshness"`
			}
			if err := json.Unmarshal(js, &got); err != nil || got.Freshness.Label != "fresh" {
				return 0, fmt.Errorf("record of %d unchanged files: %q, want fresh (%v)", n, got.Freshness.Label, err)
			}
			return d, nil
		}, func(int) (time.Duration, error) {
			return b.timed(b.cmd(ctx, dir, "git", "status", "--porcelain"))
		})
		if err != nil {
			return err
		}
		show, status := both[0], both[1]
		perFile, runs, err := b.repeatWithin(perFileBudget, func(int) (time.Duration, error) {
			start := time.Now()
			for _, p := range paths {
				if _, err := b.must(ctx, dir, "git", "status", "--porcelain", "--", p); err != nil {
					return 0, err
				}
			}
			return time.Since(start), nil
		})
		if err != nil {
			return err
		}
		if runs < b.repeats {
			fewer = append(fewer, fmt.Sprintf("%d files: %d", n, runs))
		}
		sha, err := b.timeCmd(func(int) *exec.Cmd { return b.cmd(ctx, dir, "sha256sum", paths...) })
		if err != nil {
			return err
		}
		rows = append(rows, []string{fmt.Sprint(n), spread(show), spread(status), spread(perFile), spread(sha),
			ratio(show, status), ratio(show, perFile), ratio(show, sha)})
		xs = append(xs, float64(n))
		showS, statusS, perFileS, shaS = append(showS, show), append(statusS, status), append(perFileS, perFile), append(shaS, sha)
	}
	i := len(ns) - 1
	if ns[i] == 2_000 {
		b.report.goal("is a record naming 2,000 files still true: at most 1.2x one `git status`", ratioOf(showS[i], statusS[i]) <= 1.2,
			"%s against %s, in turn: %s", ms(showS[i].median()), ms(statusS[i].median()), ratio(showS[i], statusS[i]))
	}
	b.report.headline("Is a record naming %d files still true: `freshctx show` %s, %s one whole-tree `git status`, %s of one `git status -- FILE` per file.",
		ns[i], ms(showS[i].median()), ratio(showS[i], statusS[i]), ratio(showS[i], perFileS[i]))
	sec.note("A repository of %d files; the N files are spread over it.", files)
	if len(fewer) > 0 {
		sec.note("`git status -- FILE` ×N takes seconds a run, so it was run after its warm-up only as often as fits in %s, "+
			"and a warm-up longer than that is the one measurement (runs kept: %s).", perFileBudget, strings.Join(fewer, ", "))
	}
	sec.table([]string{"N files", "freshctx show", "git status", "git status -- FILE ×N", "sha256sum ×N",
		"÷ git status", "÷ status per file", "÷ sha256sum"}, rows)
	return b.report.chart(sec, "freshness.svg", "Is a record of N files still true?", "N files named by the record", true,
		series{"freshctx show", xs, showS}, series{"git status (whole tree)", xs, statusS},
		series{"git status -- FILE, per file", xs, perFileS}, series{"sha256sum of the N files", xs, shaS})
}
