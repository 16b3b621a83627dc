package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Runner runs git with args in dir and returns its standard output. It is a
// field so tests can count or fake invocations; it is called from more than
// one goroutine at a time (a status beside a rev-parse).
type Runner func(ctx context.Context, dir string, args ...string) ([]byte, error)

// Git runs git for one work tree. Paths it accepts and returns are relative
// to the workspace root, which may be a sub-directory (prefix) of the top.
type Git struct {
	// Top is the top level of the work tree.
	Top    string
	prefix string // workspace root relative to Top, "" when equal
	Run    Runner
	// Now is the clock that times status (refresh.go); nil is time.Now.
	Now func() time.Time

	// splitFrom, when not 0, stands for the package's splitFrom.
	splitFrom int

	mu      sync.Mutex // held while the git folders are asked for
	gitDirs *gitDirs   // once read: they do not move while freshctx runs

	warmMu sync.Mutex
	warm   *warming // the Identity WarmIdentity started, if any
}

// gitDirs are the work tree's git folder (its index's) and the
// repository's common one (shared by linked work trees), both absolute.
type gitDirs struct{ dir, common string }

func (g *Git) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

func newGit(top, prefix string) *Git {
	return &Git{Top: top, prefix: prefix, Run: ExecGit}
}

// maxPathspecs bounds how many paths Index passes on the command line. Git
// matches every index entry against every pathspec, so past a few dozen
// paths one listing of the whole index is cheaper (as for a status, where
// it was measured on a 5,000-file repository: 200 pathspecs cost 3.5x a
// whole-tree status, 50 about 1x).
const maxPathspecs = 32

// maxTreePaths bounds how many paths TreeEntries passes to git ls-tree
// (treePaths): a command line of them stays under 1 MiB however long the
// paths (4 KiB at most each).
const maxTreePaths = 256

// ExecGit runs the git binary. Its stderr is folded into the error.
func ExecGit(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return execGit(ctx, dir, nil, args...)
}

// execGit is ExecGit with env added to git's environment.
func execGit(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(append(cmd.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	var out []byte
	var err error
	if sink := traceSink(ctx); sink != nil {
		out, err = traced(cmd, sink)
	} else {
		out, err = cmd.Output()
	}
	if err != nil {
		return nil, gitError(err, &stderr, args)
	}
	return out, nil
}

// gitError says why git failed: not installed, or what it printed.
func gitError(err error, stderr *bytes.Buffer, args []string) error {
	msg := strings.TrimSpace(stderr.String())
	if errors.Is(err, exec.ErrNotFound) {
		return fmt.Errorf("git is not installed or not on PATH: %w", err)
	}
	if msg != "" {
		return fmt.Errorf("git %s: %s: %w", args[0], msg, err)
	}
	return fmt.Errorf("git %s: %w", args[0], err)
}

// toGit maps a root-relative path to a top-relative one.
func (g *Git) toGit(rel string) string {
	if g.prefix == "" {
		return rel
	}
	if rel == "." {
		return g.prefix
	}
	return g.prefix + "/" + rel
}

// fromGit maps a top-relative path to a root-relative one; ok is false for
// paths outside the workspace root.
func (g *Git) fromGit(p string) (string, bool) {
	if g.prefix == "" {
		return p, true
	}
	if p == g.prefix || p == g.prefix+"/" {
		return ".", true
	}
	rest, ok := strings.CutPrefix(p, g.prefix+"/")
	return rest, ok
}

// Status runs one `git status --porcelain=v2 --branch -z` of the whole
// workspace, or its two halves at once (wholestatus.go): HEAD, the branch,
// Dirty, and Deleted for every path. Ignored files are not listed: nothing
// asks for them, and listing them kept git from using its untracked cache
// where the repository has one (a status a third slower than the user's
// own in a repository of 12,000 files with it on). Nor are the commits
// ahead of and behind the upstream counted: nothing asks for them either,
// and git walks the history between the two to count them.
func (g *Git) Status(ctx context.Context) (*Status, error) {
	return g.ask(ctx, g.planWhole())
}

// waitedFor is how long a caller must have waited for a started status
// before its time is judged (StartStatus).
const waitedFor = time.Millisecond

// StartStatus starts Status's git status now, beside whatever the caller
// does next (the command a record describes), and returns how to wait for
// it; every call of that function returns the same result. The status takes
// no lock while it runs. The stale-index refresh Status makes after a slow
// status is made here only when the caller had to wait for the status,
// after the wait, never while the status runs beside a command that may be
// using git itself; and the status already read stands, since it is right,
// only slow. A status that had ended (or all but ended: the caller waited
// less than waitedFor) when it was waited for cost the caller nothing, and
// its time, taken beside a busy command, says little about the index: it
// triggers no refresh.
func (g *Git) StartStatus(ctx context.Context) func() (*Status, error) {
	type result struct {
		w   wholeRun
		out wholeOut
		err error
	}
	done := make(chan result, 1)
	go func() {
		w := g.planWhole()
		out, err := w.run(ctx, g)
		done <- result{w, out, err}
	}()
	return sync.OnceValues(func() (*Status, error) {
		asked := g.now()
		r := <-done
		if r.err != nil {
			return nil, r.err
		}
		// A traced status says from the index whether it is stale; the
		// caller's wait ends after its command, so the refresh never runs
		// beside it.
		if len(r.out.trace) > 0 || g.now().Sub(asked) >= waitedFor {
			if again, refreshed := g.refreshAfter(ctx, r.out, r.w.args); refreshed {
				again() // the baseline's measure; the status read stands
			}
		}
		return r.out.parse(g)
	})
}

// wholeStatus is the mode of Status when it runs as one git.
var wholeStatus = []string{"--untracked-files=normal", "--no-ahead-behind"}

// StatusFiles is one whole-workspace status that lists every untracked file
// (not just its directory) and no ignored ones: what changed, file by file.
func (g *Git) StatusFiles(ctx context.Context) (*Status, error) {
	return g.status(ctx, "--untracked-files=all", "--ignored=no")
}

// refreshAfter refreshes the index when the status that printed out found
// it stale (staleIndex, from its trace); it then needs nothing more. A
// status that wrote no trace is judged by the clock: refreshed when it
// took long against the baseline (refreshIfSlow), and again then runs the
// status once more, keeping its time as the new baseline, and returns
// what it printed.
func (g *Git) refreshAfter(ctx context.Context, out wholeOut, args []string) (again func() ([]byte, error), refreshed bool) {
	if stale, known := staleIndex(out.trace, out.status); known {
		if stale {
			// As in refreshIfSlow: the lock is taken for the refresh only.
			g.Run(ctx, g.Top, "update-index", "-q", "--refresh")
		}
		return nil, false
	}
	gitDir, refreshed := g.refreshIfSlow(ctx, out.took)
	if !refreshed {
		return nil, false
	}
	return func() ([]byte, error) {
		start := g.now()
		out, err := g.Run(ctx, g.Top, args...)
		if err == nil {
			g.recordBaseline(gitDir, g.now().Sub(start))
		}
		return out, err
	}, true
}

// statusArgs are the arguments of a status of the workspace in the given
// modes.
func (g *Git) statusArgs(modes ...string) []string {
	args := append([]string{"--literal-pathspecs", "status", "--porcelain=v2", "--branch", "-z", "--no-renames"}, modes...)
	if g.prefix != "" {
		args = append(args, "--", g.prefix)
	}
	return args
}

// status runs one status in the given modes.
func (g *Git) status(ctx context.Context, modes ...string) (*Status, error) {
	return g.ask(ctx, wholeRun{args: g.statusArgs(modes...)})
}

// ask runs w and, when its status was slow against the baseline, refreshes
// the index and asks the status again (refreshAfter).
func (g *Git) ask(ctx context.Context, w wholeRun) (*Status, error) {
	out, err := w.run(ctx, g)
	if err != nil {
		return nil, err
	}
	if again, refreshed := g.refreshAfter(ctx, out, w.args); refreshed {
		if out.status, err = again(); err != nil {
			return nil, fmt.Errorf("git status: %w", err)
		}
	}
	return out.parse(g)
}

// RepoID returns an id that is the same in every clone of the repository:
// the smallest root commit reachable from HEAD, or "" with no commits yet.
// Finding root commits walks the whole history (0.7 s in a repository of
// 57,000 commits), so the answer is kept in the repository's git folder
// per HEAD (see repoid.go) and carried forward when HEAD only moved ahead.
func (g *Git) RepoID(ctx context.Context) (string, error) {
	out, err := g.Run(ctx, g.Top, "rev-parse", "--git-dir", "--git-common-dir", "HEAD")
	if err != nil {
		if gitSaidNo(ctx, err) {
			return "", nil // no commits yet
		}
		return "", err
	}
	fields := lines(out)
	if len(fields) != 3 {
		return "", fmt.Errorf("git rev-parse: unexpected output %q", out)
	}
	dirs := g.keepDirs(fields[0], fields[1])
	return g.repoIDAt(ctx, dirs.common, fields[2])
}

// Identity returns the tree of commit head (the HEAD a status reported)
// and the repository id at it. Both are kept per commit in the git folder
// (repoid.go), so for a commit seen before it costs no git process once
// the git folders are known (Prefetch). Asking by commit, not by HEAD,
// keeps the facts about one commit even when HEAD moves meanwhile.
func (g *Git) Identity(ctx context.Context, head string) (tree, id string, err error) {
	if !isHash(head) {
		return "", "", fmt.Errorf("git identity: %q is not a commit hash", head)
	}
	g.awaitWarm(ctx, head)
	return g.identity(ctx, head)
}

// identity is Identity without waiting for a warm-up.
func (g *Git) identity(ctx context.Context, head string) (tree, id string, err error) {
	dirs, err := g.dirs(ctx)
	if err != nil {
		return "", "", fmt.Errorf("find the git folder: %w", err)
	}
	cache := readRepoIDs(dirs.common)
	e, known := cache.lookup(head)
	if known && e.tree != "" {
		return e.tree, e.id, nil
	}
	// A commit new to the cache: its tree is read while its id is walked.
	type idResult struct {
		id  string
		err error
	}
	walked := make(chan idResult, 1)
	if known {
		walked <- idResult{e.id, nil}
	} else {
		go func() {
			id, err := g.repoIDFrom(ctx, head, cache.latest())
			walked <- idResult{id, err}
		}()
	}
	out, treeErr := g.Run(ctx, g.Top, "rev-parse", "--verify", "-q", head+"^{tree}")
	w := <-walked
	if treeErr != nil {
		return "", "", fmt.Errorf("read the tree of %s: %w", head, treeErr)
	}
	if w.err != nil {
		return "", "", w.err
	}
	e.head, e.tree, e.id = head, strings.TrimSpace(string(out)), w.id
	cache.add(e)
	cache.write(dirs.common) // a read-only git folder only costs the next call
	return e.tree, e.id, nil
}

// Prefetch starts finding the git folders in the background, so that a
// whole-tree status and the rev-parse Identity needs run side by side.
func (g *Git) Prefetch(ctx context.Context) {
	go g.dirs(ctx)
}

// dirs returns the git folders, read from the work tree's .git when its
// layout is the plain one (readGitDirs), else asked of git, once per Git;
// a caller that comes while they are found waits for that answer.
func (g *Git) dirs(ctx context.Context) (*gitDirs, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if d, ok := g.knownDirsLocked(); ok {
		return d, nil
	}
	out, err := g.Run(ctx, g.Top, "rev-parse", "--git-dir", "--git-common-dir")
	if err != nil {
		return nil, err
	}
	fields := lines(out)
	if len(fields) != 2 {
		return nil, fmt.Errorf("git rev-parse: unexpected output %q", out)
	}
	g.gitDirs = &gitDirs{dir: g.abs(fields[0]), common: g.abs(fields[1])}
	return g.gitDirs, nil
}

// knownDirs returns the git folders if they are known without asking git:
// read before, or readable from the work tree's .git.
func (g *Git) knownDirs() (*gitDirs, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.knownDirsLocked()
}

func (g *Git) knownDirsLocked() (*gitDirs, bool) {
	if g.gitDirs != nil {
		return g.gitDirs, true
	}
	if d, ok := readGitDirs(g.Top); ok {
		g.gitDirs = d
		return d, true
	}
	return nil, false
}

// lines splits what rev-parse printed, one answer a line: a folder's path
// may hold spaces.
func lines(out []byte) []string {
	return strings.Split(strings.TrimRight(string(out), "\n"), "\n")
}

// keepDirs notes the git folders another rev-parse printed.
func (g *Git) keepDirs(dir, common string) *gitDirs {
	d := &gitDirs{dir: g.abs(dir), common: g.abs(common)}
	g.mu.Lock()
	if g.gitDirs == nil {
		g.gitDirs = d
	}
	g.mu.Unlock()
	return d
}

// abs makes a folder git printed relative to the top absolute.
func (g *Git) abs(dir string) string {
	if filepath.IsAbs(dir) {
		return dir
	}
	return filepath.Join(g.Top, dir)
}

// repoIDAt is RepoID for a known commit, with the cache in commonDir.
func (g *Git) repoIDAt(ctx context.Context, commonDir, head string) (string, error) {
	cache := readRepoIDs(commonDir)
	if e, ok := cache.lookup(head); ok {
		return e.id, nil
	}
	id, err := g.repoIDFrom(ctx, head, cache.latest())
	if err != nil {
		return "", err
	}
	cache.add(repoIDEntry{head: head, id: id})
	cache.write(commonDir) // a read-only git folder only costs the next call the walk
	return id, nil
}

// repoIDFrom finds the repository id at head. When an earlier HEAD with a
// known id is an ancestor of head, the roots reachable from head are those
// reachable from it plus the roots among the commits since: only those
// are walked. Otherwise (a rebase, a rewritten history, another branch)
// the whole history is.
func (g *Git) repoIDFrom(ctx context.Context, head string, known repoIDEntry) (string, error) {
	if known.head != "" && known.id != "" {
		out, err := g.Run(ctx, g.Top, "rev-list", "--boundary", "--parents", head, "^"+known.head, "--")
		if err == nil {
			if roots, ancestor := rootsSince(string(out), known.head); ancestor {
				return minID(append(roots, known.id)), nil
			}
		}
	}
	out, err := g.Run(ctx, g.Top, "rev-list", "--max-parents=0", head, "--")
	if err != nil {
		if gitSaidNo(ctx, err) {
			return "", nil
		}
		return "", err
	}
	return minID(strings.Fields(string(out))), nil
}

// gitSaidNo reports whether err is git's own failure status, not a git
// killed because ctx ended: a killed git exits with a failure too
// (exec.ExitError, "signal: killed"), and taking that for "no commits"
// would keep an empty repository id for a commit that has one.
func gitSaidNo(ctx context.Context, err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ctx.Err() == nil
}

// rootsSince reads `rev-list --boundary --parents HEAD ^KNOWN`: the root
// commits among those since known, and whether known is an ancestor of
// HEAD. It is exactly when known is a parent of a commit since it, which
// the boundary ("-" and the commit) shows: one git process where an
// ancestry check and a walk took two, one after the other.
func rootsSince(out, known string) (roots []string, ancestor bool) {
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case strings.HasPrefix(f[0], "-"):
			ancestor = ancestor || f[0][1:] == known
		case len(f) == 1:
			roots = append(roots, f[0])
		}
	}
	return roots, ancestor
}

func minID(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	m := ids[0]
	for _, id := range ids[1:] {
		m = min(m, id)
	}
	return m
}

// UserEmail is git's user.email for the work tree ("" when unset): who a
// team store says published something.
func (g *Git) UserEmail(ctx context.Context) string {
	out, err := g.Run(ctx, g.Top, "config", "user.email")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
