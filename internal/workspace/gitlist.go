package workspace

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// LsFiles lists the workspace's tracked files and its untracked files that
// are not ignored, root-relative, in one `git ls-files`.
func (g *Git) LsFiles(ctx context.Context) ([]string, error) {
	return g.lsFiles(ctx, "--cached", "--others", "--exclude-standard", "--deduplicate")
}

// Tracked lists the files of the workspace's index, root-relative and each
// once (an unmerged file has several stages), in one `git ls-files
// --cached`: git reads its index and looks at no file of the work tree.
func (g *Git) Tracked(ctx context.Context) ([]string, error) {
	return g.lsFiles(ctx, "--cached", "--deduplicate")
}

// lsFiles runs `git ls-files -z` with flags over the workspace and reads the
// paths it prints.
func (g *Git) lsFiles(ctx context.Context, flags ...string) ([]string, error) {
	args := append([]string{"ls-files", "-z"}, flags...)
	if g.prefix != "" {
		args = append(args, "--", g.prefix)
	}
	out, err := g.Run(ctx, g.Top, args...)
	if err != nil {
		return nil, fmt.Errorf("git ls-files %s: %w", strings.Join(flags, " "), err)
	}
	return g.paths(out), nil
}

// paths reads NUL-separated paths git printed as root-relative ones. They
// are cut from one string of the whole output: a listing of 100,000 files
// is two allocations, not one a path.
func (g *Git) paths(out []byte) []string {
	paths := make([]string, 0, bytes.Count(out, []byte{0})+1)
	for rest := string(out); rest != ""; {
		var f string
		f, rest, _ = strings.Cut(rest, "\x00")
		if rel, ok := g.fromGit(f); ok && f != "" {
			paths = append(paths, rel)
		}
	}
	return paths
}

// Change is one path a diff names, with git's status letter (A, M, D, T…).
type Change struct {
	Status byte
	Path   string
}

// DiffTrees lists the paths that differ between two commits' trees: a
// tree-to-tree diff, which reads no work-tree file.
func (g *Git) DiffTrees(ctx context.Context, from, to string) ([]Change, error) {
	out, err := g.Run(ctx, g.Top, "diff", "--name-status", "-z", "--no-renames", "--no-ext-diff", from, to, "--")
	if err != nil {
		return nil, fmt.Errorf("git diff: %w", err)
	}
	return g.parseNameStatus(out)
}

// CommitChanges lists the paths a commit changed against its first parent
// (against nothing for a root commit); for a merge, what it brought into the
// first parent's line.
func (g *Git) CommitChanges(ctx context.Context, rev string) ([]Change, error) {
	out, err := g.Run(ctx, g.Top, "diff-tree", "-r", "-z", "--no-commit-id", "--name-status", "--no-renames", "--root",
		"--diff-merges=first-parent", rev, "--")
	if err != nil {
		return nil, fmt.Errorf("git diff-tree: %w", err)
	}
	return g.parseNameStatus(out)
}

func (g *Git) parseNameStatus(out []byte) ([]Change, error) {
	fields := bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0})
	var changes []Change
	for i := 0; i+1 < len(fields); i += 2 {
		st, p := fields[i], string(fields[i+1])
		if len(st) == 0 {
			return nil, fmt.Errorf("git diff: malformed output near %q", p)
		}
		if rel, ok := g.fromGit(p); ok {
			changes = append(changes, Change{Status: st[0], Path: rel})
		}
	}
	return changes, nil
}

// ResolveCommit returns the commit a revision names, or "" when it names
// none (unknown, or garbage-collected).
func (g *Git) ResolveCommit(ctx context.Context, rev string) (string, error) {
	out, err := g.Run(ctx, g.Top, "rev-parse", "--verify", "-q", rev+"^{commit}")
	if err != nil {
		if gitSaidNo(ctx, err) {
			return "", nil
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// IsAncestor reports whether commit a is an ancestor of (or equal to) b;
// false also when a no longer exists.
func (g *Git) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	_, err := g.Run(ctx, g.Top, "merge-base", "--is-ancestor", a, b)
	if err == nil {
		return true, nil
	}
	if gitSaidNo(ctx, err) {
		return false, nil // 1: not an ancestor; 128: unknown commit
	}
	return false, err
}

// Parents returns a commit's parents.
func (g *Git) Parents(ctx context.Context, rev string) ([]string, error) {
	out, err := g.Run(ctx, g.Top, "rev-parse", rev+"^@")
	if err != nil {
		return nil, fmt.Errorf("git rev-parse %s^@: %w", rev, err)
	}
	return strings.Fields(string(out)), nil
}

// Head is where HEAD points: the branch ("" when detached or unborn), the
// commit and its tree ("" with no commits yet).
type Head struct {
	Branch, Commit, Tree string
}

// ReadHead reads branch, commit and tree in one `git rev-parse`.
func (g *Git) ReadHead(ctx context.Context) (Head, error) {
	// --abbrev-ref applies to the arguments after it, so it comes last.
	out, err := g.Run(ctx, g.Top, "rev-parse", "HEAD", "HEAD^{tree}", "--abbrev-ref", "HEAD")
	if err != nil {
		if !gitSaidNo(ctx, err) {
			return Head{}, err
		}
		// No commit yet: HEAD names an unborn branch.
		b, berr := g.Run(ctx, g.Top, "symbolic-ref", "--short", "-q", "HEAD")
		if berr != nil {
			return Head{}, nil
		}
		return Head{Branch: strings.TrimSpace(string(b))}, nil
	}
	lines := strings.Fields(string(out))
	if len(lines) != 3 {
		return Head{}, fmt.Errorf("git rev-parse: unexpected output %q", out)
	}
	h := Head{Commit: lines[0], Tree: lines[1], Branch: lines[2]}
	if h.Branch == "HEAD" {
		h.Branch = ""
	}
	return h, nil
}

// Untracked lists the untracked files that are not ignored, one by one, in
// one `git ls-files --others`: a walk of the directories, no lstat of the
// tracked files. An untracked directory git will not enter (a nested
// repository) is listed with a trailing "/".
func (g *Git) Untracked(ctx context.Context) ([]string, error) {
	return g.lsFiles(ctx, "--others", "--exclude-standard")
}

// HeadBehind returns HEAD's commit ("" with none) and how many commits its
// upstream has that HEAD lacks (0 without an upstream).
func (g *Git) HeadBehind(ctx context.Context) (string, int, error) {
	head, err := g.ResolveCommit(ctx, "HEAD")
	if err != nil || head == "" {
		return head, 0, err
	}
	n, err := g.behind(ctx)
	return head, n, err
}

// behind counts the commits HEAD's upstream has that HEAD lacks (0
// without an upstream).
func (g *Git) behind(ctx context.Context) (int, error) {
	out, err := g.Run(ctx, g.Top, "rev-list", "--count", "HEAD..@{upstream}", "--")
	if err != nil {
		if gitSaidNo(ctx, err) {
			return 0, nil // no upstream
		}
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return 0, fmt.Errorf("git rev-list --count: %q", out)
	}
	return n, nil
}

// HeadView is HeadBehind and, with a HEAD, StagedChanges, with one git
// process fewer: HEAD's commit and the tree of the workspace's folder in
// it come from one `git rev-parse`, where each took its own. Where that
// does not answer (no HEAD, a folder HEAD does not hold) each is asked as
// HeadBehind and StagedChanges ask.
func (g *Git) HeadView(ctx context.Context) (head string, behind int, staged []Change, err error) {
	out, err := g.Run(ctx, g.Top, "rev-parse", "HEAD^{commit}", "HEAD:"+g.prefix, "--")
	ids := lines(out)
	if err != nil || len(ids) != 3 || ids[2] != "--" || objectID(ids[0]) == nil || objectID(ids[1]) == nil {
		if ctx.Err() != nil {
			return "", 0, nil, ctx.Err()
		}
		if head, behind, err = g.HeadBehind(ctx); err != nil || head == "" {
			return head, behind, nil, err
		}
		staged, err = g.StagedChanges(ctx)
		return head, behind, staged, err
	}
	if behind, err = g.behind(ctx); err != nil {
		return "", 0, nil, err
	}
	if g.indexHolds(objectID(ids[1])) {
		return ids[0], behind, nil, nil
	}
	staged, err = g.stagedByGit(ctx)
	return ids[0], behind, staged, err
}

// objectID decodes a SHA-1 or SHA-256 object id in hex; nil if s is none.
func objectID(s string) []byte {
	id, err := hex.DecodeString(s)
	if err != nil || (len(id) != 20 && len(id) != 32) {
		return nil
	}
	return id
}

// StagedChanges lists what the index changes against HEAD (git's status
// letter and path) in one `git diff-index --cached`, which reads no
// work-tree file; none, without it, when the index's cached tree of the
// workspace's folder is HEAD's (cachetree.go).
func (g *Git) StagedChanges(ctx context.Context) ([]Change, error) {
	if g.indexIsHead(ctx) {
		return nil, nil
	}
	return g.stagedByGit(ctx)
}

// stagedByGit is StagedChanges asked of git.
func (g *Git) stagedByGit(ctx context.Context) ([]Change, error) {
	args := []string{"diff-index", "--cached", "--name-status", "-z", "--no-renames", "--no-ext-diff", "HEAD", "--"}
	if g.prefix != "" {
		args = append(args, g.prefix)
	}
	out, err := g.Run(ctx, g.Top, args...)
	if err != nil {
		return nil, fmt.Errorf("git diff-index: %w", err)
	}
	return g.parseNameStatus(out)
}

// IndexEntry is a path's object id and mode in the index.
type IndexEntry struct {
	OID  string
	Mode string // "100644", "100755", "120000" (a symlink), "160000" (a gitlink)
}

// TreeEntries returns the entries of paths in the tree of the commit rev,
// in one `git ls-tree`, as Index gives the index's: a file's, a symlink's
// or a gitlink's object id and mode. A path rev does not hold (or holds as
// a folder) has none. It reads only the trees on the paths' way, where
// Index reads the whole index (50 ms at 100,000 files); ok is false, and
// nothing is asked, for more paths than treePaths takes: Index lists them
// better.
func (g *Git) TreeEntries(ctx context.Context, rev string, paths []string) (entries map[string]IndexEntry, ok bool, err error) {
	if len(paths) == 0 || len(paths) > g.treePaths() {
		return nil, len(paths) == 0, nil
	}
	entries, err = g.treeEntries(ctx, rev, paths)
	return entries, err == nil, err
}

// treePaths is how many paths TreeEntries asks ls-tree for. ls-tree reads
// the folders on each path's way, the index listing every entry, so the
// tree serves more paths the larger the index: a hundredth of its entries,
// at least maxPathspecs and at most maxTreePaths. In BenchmarkTreeEntries,
// 40 paths were 1.7-1.8x faster from the tree at 10,000 files and 7.4-8.7x
// at 100,000; 200 paths 0.79-0.84x (slower) at 10,000 and 3.4-3.8x faster
// at 100,000. An index that cannot be read without asking git takes
// maxPathspecs.
func (g *Git) treePaths() int {
	n, _ := g.indexSize()
	return min(max(n/100, maxPathspecs), maxTreePaths)
}

// treeEntries is TreeEntries for any number of paths.
func (g *Git) treeEntries(ctx context.Context, rev string, paths []string) (map[string]IndexEntry, error) {
	args := []string{"--literal-pathspecs", "ls-tree", "-z", rev, "--"}
	for _, p := range paths {
		args = append(args, g.toGit(p))
	}
	out, err := g.Run(ctx, g.Top, args...)
	if err != nil {
		return nil, fmt.Errorf("git ls-tree: %w", err)
	}
	entries := make(map[string]IndexEntry, len(paths))
	for len(out) > 0 {
		var line []byte
		line, out, _ = bytes.Cut(out, []byte{0})
		// "<mode> <type> <oid>\t<path>"
		meta, p, ok := bytes.Cut(line, []byte{'\t'})
		f := bytes.Fields(meta)
		if !ok || len(f) != 3 || string(f[1]) != "blob" && string(f[1]) != "commit" {
			continue // a folder, or what ls-tree never prints
		}
		if rel, ok := g.fromGit(string(p)); ok {
			entries[rel] = IndexEntry{OID: string(f[2]), Mode: string(f[0])}
		}
	}
	return entries, nil
}

// Index returns the index entries of paths (of every path when none are
// given), in one `git ls-files --stage`: with the paths as pathspecs when
// they are a few, else of the whole index, of which only the entries of
// paths are kept (at 100,000 entries, building all of them was a tenth of
// a sync).
func (g *Git) Index(ctx context.Context, paths []string) (map[string]IndexEntry, error) {
	args := []string{"--literal-pathspecs", "ls-files", "--stage", "-z"}
	var want map[string]bool // git's form of paths, when the whole index is listed
	switch {
	case len(paths) > 0 && len(paths) <= maxPathspecs:
		args = append(args, "--")
		for _, p := range paths {
			args = append(args, g.toGit(p))
		}
	case g.prefix != "":
		args = append(args, "--", g.prefix)
	}
	if len(paths) > maxPathspecs {
		want = make(map[string]bool, len(paths))
		for _, p := range paths {
			want[g.toGit(p)] = true
		}
	}
	out, err := g.Run(ctx, g.Top, args...)
	if err != nil {
		return nil, fmt.Errorf("git ls-files --stage: %w", err)
	}
	entries := make(map[string]IndexEntry, min(len(paths), 1<<16))
	for len(out) > 0 {
		var line []byte
		line, out, _ = bytes.Cut(out, []byte{0})
		// "<mode> <oid> <stage>\t<path>"
		meta, p, ok := bytes.Cut(line, []byte{'\t'})
		if !ok || want != nil && !want[string(p)] {
			continue
		}
		mode, rest, ok1 := bytes.Cut(meta, []byte{' '})
		oid, stage, ok2 := bytes.Cut(rest, []byte{' '})
		if !ok1 || !ok2 || len(mode) == 0 || len(oid) == 0 || len(stage) == 0 || bytes.IndexByte(stage, ' ') >= 0 {
			continue
		}
		if rel, ok := g.fromGit(string(p)); ok {
			entries[rel] = IndexEntry{OID: string(oid), Mode: string(mode)}
		}
	}
	return entries, nil
}
