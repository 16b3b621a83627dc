package main

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"path/filepath"
)

// The shape of a real repository of the size the history section builds:
// moby's tree at 57,533 commits, the repository the issue on speed was
// measured in, holds 13,024 files in 2,709 folders. These are how many
// folders and files it holds at each depth (0 is the root: 25 files there,
// 19 folders at depth 1 holding 549 files, and so on).
var (
	realFolders = []int{1, 19, 118, 352, 396, 539, 602, 452, 163, 64, 4}
	realFiles   = []int{25, 549, 659, 1195, 2471, 2865, 2323, 1686, 1046, 164, 41}
)

// shapedPath lays n files out in the real repository's shape: file i takes
// the place of file i·13,024/n of that tree, round-robin over the folders of
// its depth, each folder below the one of its parent's depth with the same
// number modulo their count. The folders at each depth are scaled to n as
// the files are (at least one): at n = 13,000 that is about moby's 2,709
// folders, where repoPath makes 132.
func shapedPath(n int) func(i int) string {
	total := 0
	for _, f := range realFiles {
		total += f
	}
	folders := make([]int, len(realFolders))
	for d, f := range realFolders {
		folders[d] = max(1, (f*n+total/2)/total)
	}
	var folder func(d, j int) string
	folder = func(d, j int) string {
		if d == 0 {
			return ""
		}
		return path.Join(folder(d-1, j%folders[d-1]), fmt.Sprintf("dir%d_%03d", d, j))
	}
	return func(i int) string {
		k := i * total / n
		d := 0
		for k >= realFiles[d] {
			k -= realFiles[d]
			d++
		}
		return path.Join(folder(d, k%folders[d]), fmt.Sprintf("file%06d.go", i))
	}
}

// foldersOf counts the folders below the root that n files laid out by
// layout sit in.
func foldersOf(n int, layout func(int) string) int {
	seen := map[string]bool{}
	for i := range n {
		for dir := path.Dir(layout(i)); dir != "." && !seen[dir]; dir = path.Dir(dir) {
			seen[dir] = true
		}
	}
	return len(seen)
}

// shapedRun measures `run -- true` against `git status` and `true`, in turn,
// in a repository of files files and commits commits laid out in the real
// repository's shape, and states the goal on it beside the dense tree's.
func (b *bench) shapedRun(ctx context.Context, sec *section, files, commits int) error {
	dir := filepath.Join(b.tmp, "history-shaped")
	layout := shapedPath(files)
	folders := foldersOf(files, layout)
	b.progress(fmt.Sprintf("  a repository of %d files in %d folders and %d commits", files, folders, commits))
	if err := b.makeRepoShaped(ctx, dir, files, commits, layout); err != nil {
		return err
	}
	tStatus, tTrue, tRun, over, err := b.trueInTurn(ctx, dir)
	if err != nil {
		return err
	}
	b.report.goal(fmt.Sprintf("`run -- true` with %d files in a real repository's shape (%d folders) and %d commits adds at most 1.2x one `git status`", files, folders, commits),
		over <= 1.2, "%s over `true` against %s for `git status`, measured in turn: %s", ms(tRun.median()-tTrue.median()), ms(tStatus.median()), times(over))
	b.report.extendHeadline("In a tree of the same size in a real repository's shape (%d folders, as moby's 2,709): %s against %s, %s.",
		folders, ms(tRun.median()), ms(tStatus.median()), times(over))
	sec.note("In a repository of %d files and %d commits laid out as a real repository of that size is (moby's tree at 57,533 "+
		"commits holds 13,024 files in 2,709 folders; the layout puts as many folders and files at each depth), %d folders where "+
		"the trees above have %d, measured in turn the same way: `git status --porcelain` %s, `true` %s, `run -- true` %s: %s of "+
		"a git status over `true`. A git status reads every folder, so it costs more there. freshctx asks the same question as two "+
		"gits at once (the tracked files, and the untracked ones), so on two cores that split pays for part of what it adds; its "+
		"process, the record and the store cost what they cost in the dense tree.",
		files, commits, folders, foldersOf(files, repoPath), spread(tStatus), spread(tTrue), spread(tRun), times(over))
	return nil
}

// realRun measures the goal's figure, in turn, in the real repository
// given with -repo, if any, with a store of its own in the temporary
// folder; it says so when none was given.
func (b *bench) realRun(ctx context.Context, sec *section) error {
	if b.repo == "" {
		sec.note("No real repository was measured (`go run ./bench -repo DIR` measures the same in the work tree DIR, a checkout of moby, say).")
		return nil
	}
	count := func(args ...string) (int, error) {
		out, err := b.must(ctx, b.repo, "git", args...)
		if err != nil {
			return 0, err
		}
		return bytes.Count(out, []byte{'\n'}), nil
	}
	files, err := count("ls-files")
	if err != nil {
		return err
	}
	folders, err := count("ls-tree", "-r", "-d", "--name-only", "HEAD")
	if err != nil {
		return err
	}
	commits, err := count("rev-list", "HEAD")
	if err != nil {
		return err
	}
	b.progress(fmt.Sprintf("  %s: %d files in %d folders and %d commits", filepath.Base(b.repo), files, folders, commits))
	store := "FRESHCTX_STORE=" + filepath.Join(b.tmp, "real-store", "freshctx.db")
	tStatus, tTrue, tRun, over, err := b.trueInTurn(ctx, b.repo, store)
	if err != nil {
		return err
	}
	sec.note("In the real repository given (%s: %d files in %d folders, %d commits), measured in turn the same way: "+
		"`git status --porcelain` %s, `true` %s, `run -- true` %s: %s of a git status over `true`.",
		filepath.Base(b.repo), files, folders, commits, spread(tStatus), spread(tTrue), spread(tRun), times(over))
	return nil
}
