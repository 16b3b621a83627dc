package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// makeRepo builds a repository of nFiles source files and nCommits commits
// in dir with git fast-import (seconds, where committing one by one would
// take hours): the first commit adds every file, each later one changes one
// file. The work tree is checked out.
func (b *bench) makeRepo(ctx context.Context, dir string, nFiles, nCommits int) error {
	return b.makeRepoShaped(ctx, dir, nFiles, nCommits, repoPath)
}

// makeRepoShaped is makeRepo with file i at path(i).
func (b *bench) makeRepoShaped(ctx context.Context, dir string, nFiles, nCommits int, path func(int) string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if _, err := b.must(ctx, dir, "git", "init", "-q", "-b", "main"); err != nil {
		return err
	}
	c := b.cmd(ctx, dir, "git", "fast-import", "--quiet")
	in, err := c.StdinPipe()
	if err != nil {
		return err
	}
	if err := c.Start(); err != nil {
		return err
	}
	w := bufio.NewWriterSize(in, 1<<20)
	writeErr := writeHistory(w, nFiles, nCommits, path)
	if writeErr == nil {
		writeErr = w.Flush()
	}
	in.Close()
	if err := c.Wait(); err != nil {
		return fmt.Errorf("git fast-import: %w", err)
	}
	if writeErr != nil {
		return writeErr
	}
	if _, err = b.must(ctx, dir, "git", "checkout", "-q", "-f", "main"); err != nil {
		return err
	}
	// A file written in the same second as the index is "racily clean" to
	// git, which then hashes it on every status until one writes the
	// index after that second: a repository in use is older than that.
	time.Sleep(1100 * time.Millisecond)
	_, err = b.must(ctx, dir, "git", "update-index", "-q", "--refresh")
	return err
}

func writeHistory(w io.Writer, nFiles, nCommits int, path func(int) string) error {
	at := int64(1_700_000_000)
	commit := func(msg string) {
		at++
		fmt.Fprintf(w, "commit refs/heads/main\ncommitter bench <bench@example.com> %d +0000\ndata %d\n%s\n", at, len(msg), msg)
	}
	file := func(i, version int) {
		body := sourceFile(i, version)
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", path(i), len(body), body)
	}
	commit("the tree")
	for i := range nFiles {
		file(i, 0)
	}
	for c := 1; c < nCommits; c++ {
		commit(fmt.Sprintf("change %d", c))
		file(c%nFiles, c)
	}
	_, err := fmt.Fprintln(w, "done")
	return err
}

// repoPath spreads files over folders of at most 100: a dense tree, with
// twenty times fewer folders than a real repository of its size (shapedPath).
func repoPath(i int) string {
	return fmt.Sprintf("pkg%03d/sub%02d/file%06d.go", i/10000, i/100%100, i)
}

// sourceFile is a small Go file: what a repository's files look like to
// git and to a hash.
func sourceFile(i, version int) string {
	return fmt.Sprintf(`package pkg%03d

// F%d returns what version %d of this file computes.
func F%d(x int) int {
	if x < 0 {
		return -x * %d
	}
	return x + %d
}
`, i/10000, i, version, i, version+1, i)
}

// touch appends a line to the work tree's copy of file i: a change git
// and freshctx both have to find.
func touch(dir string, i, n int) error {
	f, err := os.OpenFile(filepath.Join(dir, repoPath(i)), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "// touched %d\n", n)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
