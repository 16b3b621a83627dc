package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// An identical copy of a binary can start measurably faster or slower than
// another, by where the machine put its pages: six copies of freshctx made
// one after another, their `version` timed in turn, had medians from 18.1
// to 20.3 ms, and a copy kept its speed when its pages were dropped and
// read again. A per-call figure from one copy is that copy's; the rounds
// of the per-call table run each binary the bench built from one of
// placements copies in turn, so that its median is the binary's.

// placements is how many copies of each binary the per-call rounds rotate
// through.
const placements = 4

// placed returns, for each call, the program to run in each round: a
// binary the bench built (one under its temporary folder) from its copies
// in turn, anything else (true, git, bash) as it is.
func (b *bench) placed(calls []callCost) (func(call, round int) string, error) {
	copies := map[string][]string{}
	for _, c := range calls {
		p := c.argv[0]
		if _, done := copies[p]; done || !strings.HasPrefix(p, b.tmp+string(filepath.Separator)) {
			continue
		}
		list := []string{p}
		for i := 1; i < placements; i++ {
			dst := fmt.Sprintf("%s.copy%d", p, i)
			if err := copyExecutable(p, dst); err != nil {
				return nil, err
			}
			list = append(list, dst)
		}
		copies[p] = list
	}
	return func(call, round int) string {
		p := calls[call].argv[0]
		list, ok := copies[p]
		if !ok {
			return p
		}
		return list[max(round, 0)%len(list)]
	}, nil
}

// copyExecutable copies the executable src to dst, a new file.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}
