package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
)

const registryIntro = "`freshctx registry sync` on trees of 500 to 100,000 files: the bootstrap that hashes every\n" +
	"file once, then a sync with nothing changed (the registry is trusted without reading a file),\n" +
	"and with 10 and 500 files changed since (each repeat changes files not changed before), against\n" +
	"one `git status --porcelain` of the same tree in the same state, run in turn with each sync, and\n" +
	"against an MD5 of every file\n" +
	"(seed 002's way: `find … | xargs md5sum`)."

func (b *bench) registry(ctx context.Context, sec *section) error {
	sizes := []int{500, 10_000, 100_000}
	if b.short {
		sizes = []int{500, 2_000}
	}
	var rows [][]string
	var boot [][]string
	headline := map[int]string{}
	for _, n := range sizes {
		dir := filepath.Join(b.tmp, fmt.Sprintf("registry-%d", n))
		b.progress(fmt.Sprintf("  a tree of %d files", n))
		if err := b.makeRepo(ctx, dir, n, 1); err != nil {
			return err
		}
		// Files younger than the racy window cannot be trusted on their
		// timestamps; a repository's files are older than that.
		time.Sleep(freshness.RacyWindow + 100*time.Millisecond)
		bootstrap, err := b.repeat(func(int) (time.Duration, error) {
			if err := os.RemoveAll(filepath.Join(dir, store.DirName)); err != nil {
				return 0, err
			}
			return b.sync(ctx, dir, "bootstrap")
		})
		if err != nil {
			return err
		}
		md5, err := b.timeCmd(func(int) *exec.Cmd {
			return b.cmd(ctx, dir, "sh", "-c", "find . -path ./.git -prune -o -path ./"+store.DirName+
				" -prune -o -type f -print0 | xargs -0 md5sum > /dev/null")
		})
		if err != nil {
			return err
		}
		boot = append(boot, []string{fmt.Sprint(n), spread(bootstrap),
			fmt.Sprintf("%.0f files/s", float64(n)/bootstrap.median().Seconds()), spread(md5), ratio(bootstrap, md5)})
		touched := 0
		for _, changed := range []int{0, 10, 500} {
			if changed >= n {
				continue
			}
			want := "trust"
			if changed > 0 {
				want = "verify"
			}
			// Each round changes files, verifies them (read-only: the
			// state stays) and syncs, the two in either order by turns,
			// then runs git status over the same tree in the same state.
			// The first of the two hashes the changed files, which the
			// stat cache spares the second.
			both, err := swappedTurns(b.repeats, func(int) error {
				for range changed {
					if err := touch(dir, touched%n, touched); err != nil {
						return err
					}
					touched++
				}
				return nil
			}, func(int) (time.Duration, error) {
				start := time.Now()
				_, err := b.must(ctx, dir, b.bin, "registry", "verify", "--json")
				return time.Since(start), err
			}, func(i int) (time.Duration, error) {
				if i < 0 {
					// The warm-up may verify: right after a bootstrap the files'
					// timestamps are too recent to settle a fingerprint on.
					return b.sync(ctx, dir, "")
				}
				return b.sync(ctx, dir, want)
			}, func(int) (time.Duration, error) {
				return b.timed(b.cmd(ctx, dir, "git", "status", "--porcelain"))
			})
			if err != nil {
				return err
			}
			verifyS, syncS, status := both[0], both[1], both[2]
			if n == 100_000 && changed == 10 {
				b.report.goal("`registry sync` with 10 of 100,000 files changed: at most 1.2x one `git status`", ratioOf(syncS, status) <= 1.2,
					"%s against %s, in turn: %s", ms(syncS.median()), ms(status.median()), ratio(syncS, status))
			}
			if n == sizes[len(sizes)-1] && changed == 10 {
				b.report.goal(fmt.Sprintf("the read-only `registry verify` no slower than the sync that writes (%d files, 10 changed)", n),
					verifyS.median() <= syncS.median(), "%s against %s, in turn: %s", ms(verifyS.median()), ms(syncS.median()), ratio(verifyS, syncS))
			}
			rows = append(rows, []string{fmt.Sprint(n), fmt.Sprint(changed), want, spread(syncS), spread(verifyS), spread(status),
				spread(md5), ratio(syncS, status), ratio(verifyS, syncS), ratio(syncS, md5)})
			if n == sizes[len(sizes)-1] {
				headline[changed] = fmt.Sprintf("%s (%s git status, %s an MD5 of every file)", ms(syncS.median()), ratio(syncS, status), ratio(syncS, md5))
			}
		}
	}
	b.report.extendHeadline("A registry of %d files: trusted with nothing changed in %s; verified with 10 files changed in %s.",
		sizes[len(sizes)-1], headline[0], headline[10])
	sec.note("Bootstrap: every file hashed and stored once.")
	sec.table([]string{"files", "registry sync (bootstrap)", "rate", "MD5 of every file", "÷ MD5"}, boot)
	sec.note("Later syncs. \"changed\" counts files changed in the work tree before each round; the action is the one the sync reported. " +
		"`registry verify` and the sync run one after the other in each round, the verify first in one round and the sync in the next: " +
		"the first of them hashes the changed files, and the stat cache spares the second.")
	sec.table([]string{"files", "changed", "action", "registry sync", "registry verify", "git status", "MD5 of every file",
		"sync ÷ git status", "verify ÷ sync", "sync ÷ MD5"}, rows)
	return nil
}

// sync runs one registry sync and checks the action it took ("" takes any).
func (b *bench) sync(ctx context.Context, dir, want string) (time.Duration, error) {
	start := time.Now()
	out, err := b.must(ctx, dir, b.bin, "registry", "sync", "--json")
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	var res struct{ Action string }
	if err := json.Unmarshal(out, &res); err != nil {
		return 0, fmt.Errorf("registry sync: %w", err)
	}
	if want != "" && res.Action != want {
		return 0, fmt.Errorf("registry sync in %s: %s, want %s", filepath.Base(dir), res.Action, want)
	}
	return d, nil
}
