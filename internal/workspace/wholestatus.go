package workspace

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"
)

// A whole-tree status answers two questions one after the other: which
// tracked files differ (the index against HEAD and the work tree, with the
// stat calls spread over threads) and which files are untracked (one walk
// of the tree, on one thread). Where the machine has a core to spare, Status
// asks them at once, of two gits: `git status --untracked-files=no` and
// `git ls-files --others --directory`, which lists the untracked files as
// the status's normal mode does (a directory holding nothing tracked once,
// with a "/"; no empty directory; no ignored file). In a repository of
// 13,000 files that took 13-17 ms where one status took 15-20.
//
// Only where the walk is long enough to pay for a second git's start: below
// splitFrom entries in the index, one status runs. On two cores, `run --
// true` with the split took 1.06-1.10x what it took with one status in
// repositories of 66 to 6,000 files, the same at 13,000 in dense folders,
// and 0.97x at 13,000 files in 2,744 folders.
//
// Nor where git keeps an untracked cache in the index (core.untrackedCache,
// feature.manyFiles): the status answers the second question from it in a
// fraction of a walk, and ls-files has no use for it. Then, and where the
// index cannot be found without asking git, the one status runs as before.

// trackedStatus is the mode of the status of a split whole: tracked files
// only.
var trackedStatus = []string{"--untracked-files=no", "--no-ahead-behind"}

// wholeRun is how one whole-tree status is asked for.
type wholeRun struct {
	// args is the status; it is the part timed for the stale-index check
	// (refresh.go), since only it reads the index's stat data.
	args []string
	// others lists the untracked files beside it; nil when the status
	// lists them itself.
	others []string
}

// splitFrom is how many index entries a whole-tree status needs before it
// splits in two gits.
const splitFrom = 10000

// planWhole chooses how to ask for the whole-tree status.
func (g *Git) planWhole() wholeRun {
	if runtime.NumCPU() < 2 || !g.worthSplitting() {
		return g.oneStatus()
	}
	return g.splitStatus()
}

// oneStatus is the whole-tree status as one git.
func (g *Git) oneStatus() wholeRun { return wholeRun{args: g.statusArgs(wholeStatus...)} }

// splitStatus is the whole-tree status as two gits at once.
func (g *Git) splitStatus() wholeRun {
	others := []string{"--literal-pathspecs", "ls-files", "-z", "--others", "--exclude-standard", "--directory", "--no-empty-directory"}
	if g.prefix != "" {
		others = append(others, "--", g.prefix)
	}
	return wholeRun{args: g.statusArgs(trackedStatus...), others: others}
}

// wholeOut is what a wholeRun printed, and how long its status took.
type wholeOut struct {
	status, others []byte
	took           time.Duration
	trace          []byte // git's trace2 events of the status, when traced
}

// run asks git, both questions at once when the plan splits them.
func (w wholeRun) run(ctx context.Context, g *Git) (wholeOut, error) {
	var out wholeOut
	var othersErr error
	var wg sync.WaitGroup
	if w.others != nil {
		wg.Go(func() { out.others, othersErr = g.Run(ctx, g.Top, w.others...) })
	}
	start := g.now()
	tctx, trace := withTrace(ctx) // git says whether the index is stale (indextrace.go)
	status, err := g.Run(tctx, g.Top, w.args...)
	out.status, out.took, out.trace = status, g.now().Sub(start), trace.Bytes()
	wg.Wait()
	if err != nil {
		return out, fmt.Errorf("git status: %w", err)
	}
	if othersErr != nil {
		return out, fmt.Errorf("git status: untracked files: %w", othersErr)
	}
	return out, nil
}

// parse reads what the run printed as one status.
func (o wholeOut) parse(g *Git) (*Status, error) {
	st, err := parseStatus(o.status, g.fromGit)
	if err != nil {
		return nil, err
	}
	for _, p := range bytes.Split(o.others, []byte{0}) {
		if len(p) > 0 {
			st.add(Entry{Kind: '?'}, string(p), g.fromGit)
		}
	}
	return st, nil
}

// worthSplitting reports whether the index holds at least splitFrom
// entries (g.splitFrom, when set) and no untracked cache (its "UNTR"
// extension). An index that cannot be looked at without asking git, or
// read, or whose header is not one, keeps the status whole. The bytes after
// the header are only searched, not parsed, so a path or a hash that holds
// the four letters keeps it whole too; a cache the index holds is never
// missed.
func (g *Git) worthSplitting() bool {
	n, index := g.indexSize()
	if n < cmp.Or(g.splitFrom, splitFrom) {
		return false // no index yet, or none read, is no entry
	}
	found, err := holds(index, []byte("UNTR"))
	return err == nil && !found
}

// indexSize is how many entries the work tree's index holds, and its path,
// when it can be read without asking git (indexPath); 0 and "" otherwise.
func (g *Git) indexSize() (int, string) {
	index := g.indexPath()
	if index == "" {
		return 0, ""
	}
	n, err := indexEntries(index)
	if err != nil {
		return 0, ""
	}
	return n, index
}

// indexPath is the work tree's index file when it is known without asking
// git: not under GIT_INDEX_FILE, the git folder known; "" otherwise.
func (g *Git) indexPath() string {
	if os.Getenv("GIT_INDEX_FILE") != "" {
		return ""
	}
	dirs, ok := g.knownDirs()
	if !ok {
		return ""
	}
	return filepath.Join(dirs.dir, "index")
}

// indexEntries reads how many entries the index at path holds from its
// header: "DIRC", a version, then the count, each four bytes.
func indexEntries(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var h [12]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return 0, fmt.Errorf("read the index's header: %w", err)
	}
	if string(h[:4]) != "DIRC" {
		return 0, fmt.Errorf("%s: not a git index", path)
	}
	return int(binary.BigEndian.Uint32(h[8:])), nil
}

// holds reports whether the file holds word, reading it in pieces.
func holds(path string, word []byte) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	keep := 0 // the end of the last piece, a word's length less one
	for {
		n, err := f.Read(buf[keep:])
		if bytes.Contains(buf[:keep+n], word) {
			return true, nil
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		end := keep + n
		keep = min(end, len(word)-1)
		copy(buf, buf[end-keep:end])
	}
}
