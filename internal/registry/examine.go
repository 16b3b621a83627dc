package registry

import (
	"context"
	"errors"
	"slices"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/workspace"
)

// examination is a verification pass before it is applied.
type examination struct {
	head       string
	clean      bool
	fallback   string // "full" when every file had to be examined
	candidates int
	cands      []string
	verdicts   []Verdict
	counts     Counts
	rows       map[string]row   // current rows of the candidates
	seen       map[string]found // what is on disk now, for present candidates
	skips      map[string]string
	status     *workspace.Status
	leftGit    map[string]bool  // deleted by the commits since the last verification
	norow      map[string]found // examined, with no row to be: absent, not a regular file, skipped for content
	forget     map[string]bool  // examined and no longer watched (left git for good)
	moved      []string         // rows and watched paths whose fingerprint moved
	// keptDirty counts the rows whose digest came from a work-tree change
	// that nothing named again (keptChanged): they stay as they are, and
	// the tree is not clean.
	keptDirty int
	view      gitView
}

// setStatus settles what git would list for the candidates, and whether
// the tree is clean.
func (s *Service) setStatus(ctx context.Context, g *workspace.Git, ex *examination) error {
	st, err := s.status(ctx, g, ex.view, ex.cands)
	if err != nil {
		return err
	}
	ex.status, ex.clean = st, ex.head != "" && !st.Dirty() && ex.keptDirty == 0
	return nil
}

// found is a candidate file as it is now.
type found struct {
	digest   string
	size     int64
	worktree int    // gitClean, gitChanged or gitUntracked
	fp       string // the fingerprint the digest goes with
	fpAt     int64  // when it was taken
}

// examine decides the candidates and classifies them. It reads files but
// writes nothing.
func (s *Service) examine(ctx context.Context, st state) (*examination, error) {
	return s.examineFrom(ctx, st, nil)
}

// examineFrom is examine starting from what was seen already (the view
// and scan a sync's trust check made), when seen is not nil.
func (s *Service) examineFrom(ctx context.Context, st state, seen *looked) (*examination, error) {
	g, ex, err := s.newExamination(ctx, seen)
	if err != nil {
		return nil, err
	}
	if ex.cands, err = s.candidates(ctx, g, st, ex); err != nil {
		return nil, err
	}
	if ex.status == nil {
		if err := s.setStatus(ctx, g, ex); err != nil {
			return nil, err
		}
	}
	return ex, s.classify(ctx, ex)
}

// newExamination starts an examination with git's narrow view (HEAD, the
// staged changes, the untracked files) and, alongside it, the fingerprint
// scan of every row. The status of the candidates is built once they are
// known (setStatus).
func (s *Service) newExamination(ctx context.Context, seen *looked) (*workspace.Git, *examination, error) {
	g, err := s.git()
	if err != nil {
		return nil, nil, err
	}
	if seen == nil {
		view, moved, err := s.look(ctx, g)
		if err != nil {
			return nil, nil, err
		}
		seen = &looked{view: view, moved: moved}
	}
	view, moved := seen.view, seen.moved
	return g, &examination{head: view.head, view: view, moved: moved,
		seen: map[string]found{}, skips: map[string]string{}, leftGit: map[string]bool{},
		norow: map[string]found{}, forget: map[string]bool{}}, nil
}

// examineClose classifies the paths a commit changed and every row whose
// fingerprint moved, with one status for the work-tree flags.
func (s *Service) examineClose(ctx context.Context, changes []workspace.Change) (*examination, error) {
	g, ex, err := s.newExamination(ctx, nil)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	err = s.Store.View(ctx, func(tx *store.Tx) error {
		changed, untracked, err := worktreePaths(ctx, tx, s.WS.Root) // changed in the work tree when last seen
		for _, p := range append(changed, untracked...) {
			set[p] = true
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, c := range changes {
		set[c.Path] = true
		if c.Status == 'D' {
			ex.leftGit[c.Path] = true
		}
	}
	for _, p := range ex.moved {
		set[p] = true
	}
	for p := range set {
		ex.cands = append(ex.cands, p)
	}
	slices.Sort(ex.cands)
	if err := s.setStatus(ctx, g, ex); err != nil {
		return nil, err
	}
	return ex, s.classify(ctx, ex)
}

// classify loads the rows of the candidates, observes the files and sets
// the verdicts.
func (s *Service) classify(ctx context.Context, ex *examination) error {
	ex.candidates = len(ex.cands)
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		ex.rows, err = loadRows(ctx, tx, s.WS.Root, ex.cands)
		return err
	})
	if err != nil {
		return err
	}
	if err := s.observe(ctx, ex, ex.cands); err != nil {
		return err
	}
	for _, p := range ex.cands {
		if v := ex.verdict(p); v != "" {
			ex.verdicts = append(ex.verdicts, Verdict{Path: p, Verdict: v})
			ex.counts.add(v)
		}
	}
	return nil
}

// candidates lists what may have changed since the last verification:
// O(changed) when the last verified commit is an ancestor of HEAD, every
// file otherwise.
func (s *Service) candidates(ctx context.Context, g *workspace.Git, st state, ex *examination) ([]string, error) {
	set := map[string]bool{}
	add := func(p string) { set[p] = true }
	incremental := st.exists && st.lastSHA != "" && ex.head != ""
	if incremental && st.lastSHA != ex.head {
		ok, err := g.IsAncestor(ctx, st.lastSHA, ex.head)
		if err != nil {
			return nil, err
		}
		incremental = ok
	}
	for _, p := range ex.moved {
		add(p) // rows whose file may have changed, whatever git says; gone files that are back
	}
	if incremental {
		if st.lastSHA != ex.head {
			changes, err := g.DiffTrees(ctx, st.lastSHA, ex.head)
			if err != nil {
				return nil, err
			}
			for _, c := range changes {
				add(c.Path)
				if c.Status == 'D' {
					ex.leftGit[c.Path] = true
				}
			}
		}
		for _, p := range ex.view.untracked {
			add(p)
		}
		for _, c := range ex.view.staged {
			add(c.Path)
		}
		err := s.Store.View(ctx, func(tx *store.Tx) error {
			changed, untracked, err := worktreePaths(ctx, tx, s.WS.Root)
			for _, p := range untracked {
				add(p) // an ignore rule may have taken it out of the tree
			}
			ex.keptDirty = keptChanged(changed, set)
			return err
		})
		if err != nil {
			return nil, err
		}
	} else {
		ex.fallback = "full"
		// Every file is a candidate: one whole status costs no more.
		status, err := g.StatusFiles(ctx)
		if err != nil {
			return nil, err
		}
		ex.status, ex.clean = status, !status.Dirty()
		files, err := g.LsFiles(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range files {
			add(p)
		}
		// A deletion already staged (git rm, the old name of a git mv) is
		// listed nowhere else: examined, it is watched as absent, so the
		// file is noticed when it comes back (a reset, a checkout) though
		// git then calls it clean.
		for _, e := range status.Entries() {
			if e.Kind != '?' && e.Kind != '!' {
				add(e.Path)
			}
		}
		err = s.Store.View(ctx, func(tx *store.Tx) error {
			rows, err := loadRows(ctx, tx, s.WS.Root, nil)
			for p := range rows {
				add(p)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		if p != "" && p != "./" && p[len(p)-1] != '/' {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, nil
}

// gitState is how the examination's status sees a file.
func (ex *examination) gitState(p string) int {
	e, listed := ex.status.Entry(p)
	switch {
	case !listed || e.Kind == '!':
		return gitClean
	case e.Kind == '?':
		return gitUntracked
	}
	return gitChanged
}

// keptChanged counts the rows of tracked files whose digest came from a
// work-tree change (changed) that are no candidate (set): their settled
// fingerprint has not moved, so their bytes are the ones their digest was
// taken from, and git names none of them as staged or changed by the
// commits since the last verification, so its view of them has not
// changed either (an index made to match a file stages it, unless the file
// is HEAD's: such a row stays flagged, the tree unclean, which costs a
// trust, never a wrong answer). They are not read again: every sync of a
// tree left dirty hashed each of them against its index entry, and listed
// the whole index past 32 of them. Untracked rows are always examined.
func keptChanged(changed []string, set map[string]bool) int {
	n := 0
	for _, p := range changed {
		if !set[p] {
			n++
		}
	}
	return n
}

// observe hashes the candidates (through the stat cache) and records what
// is on disk and what is skipped.
func (s *Service) observe(ctx context.Context, ex *examination, cands []string) error {
	snap, err := s.snapshot(ctx)
	if err != nil {
		return err
	}
	var hash []string
	for _, p := range cands {
		if reason := skipByName(p); reason != "" {
			// Skipped by its name while it is there; a deleted one is
			// off the skip list.
			if _, err := snap.Fingerprint(p); err == nil {
				ex.skips[p] = reason
			}
			continue
		}
		hash = append(hash, p)
	}
	digests, err := s.digest(ctx, snap, hash)
	if err != nil {
		return err
	}
	for _, d := range digests {
		noRow := found{fp: d.FP.String(), fpAt: d.Recorded}
		switch {
		case errors.Is(d.Err, freshness.ErrTooLarge):
			ex.skips[d.Path] = SkipTooLarge
			ex.norow[d.Path] = noRow
		case errors.Is(d.Err, freshness.ErrOutsideRoot):
			ex.skips[d.Path] = SkipOutsideRoot
			ex.norow[d.Path] = noRow
		case d.Err != nil:
			// Gone, a directory now, or unreadable: not a registry file,
			// but watched in case it becomes one.
			ex.norow[d.Path] = noRow
		case d.Tag != "":
			ex.skips[d.Path] = d.Tag
			ex.norow[d.Path] = noRow
		case ex.ignored(d.Path):
			// Left the index and is ignored now: no longer a file of the
			// tree. While HEAD still has it, a reset or checkout can bring
			// it back without touching the file: it is examined every time.
			if ex.stagedRemoval(d.Path) {
				ex.norow[d.Path] = found{fp: alwaysExamine}
			} else {
				ex.forget[d.Path] = true
			}
		default:
			ex.seen[d.Path] = found{digest: d.Digest.String(), size: d.Info().Size, worktree: ex.gitState(d.Path),
				fp: d.FP.String(), fpAt: d.Recorded}
		}
	}
	return snap.Flush(ctx)
}

// ignored reports whether a file on disk has left git's index (deleted by a
// commit, or by a staged `git rm --cached`) and is not listed as untracked:
// git ignores it, so the registry drops it.
func (ex *examination) ignored(p string) bool {
	e, listed := ex.status.Entry(p)
	if !ex.stagedRemoval(p) && !(ex.leftGit[p] && !listed) {
		return false
	}
	return !listed || e.Kind != '?'
}

// stagedRemoval reports a removal from the index not yet committed. An
// unmerged entry's letters name what each side of a merge did ("DU":
// deleted by us, modified by them): the path is still in the index, in its
// conflict stages, and is no removal.
func (ex *examination) stagedRemoval(p string) bool {
	e, listed := ex.status.Entry(p)
	return listed && e.Kind == '1' && len(e.XY) == 2 && e.XY[0] == 'D'
}

// alwaysExamine is a fingerprint no file has: a watched path stored with it
// is a candidate on every examination.
const alwaysExamine = "!"

// digest hashes files in parallel, with progress when it is long.
func (s *Service) digest(ctx context.Context, snap *freshness.Snapshot, paths []string) ([]freshness.FileDigest, error) {
	opt := freshness.DigestOptions{MaxSize: s.maxSize(), Sniff: sniff}
	stop := startProgress(s.Progress, int64(len(paths)), &opt)
	defer stop()
	return snap.DigestMany(ctx, paths, opt)
}

// verdict compares what is on disk with the row.
func (ex *examination) verdict(p string) string {
	r, had := ex.rows[p]
	f, present := ex.seen[p]
	switch {
	case had && !present:
		return Missing
	case !had && present:
		return New
	case !had:
		return "" // skipped or gone, and never registered
	case r.digest == f.digest:
		return Match
	default:
		return Mismatch
	}
}
