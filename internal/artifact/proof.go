package artifact

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/workspace"
)

// A path set proof lets a get know the work tree's path set without
// listing it: git's listing is two processes and an lstat of every file of
// the index, more than one `git status` of the whole tree.
//
// The listing depends on the tree's folders (a file is added, removed or
// renamed only by changing its folder, which moves the folder's mtime and
// ctime), on the index and the exclude rules (the .gitignore files, which
// the folders hold, info/exclude, the global excludes file, and the
// configuration that names it) and on nothing else. When a put (or a get
// that had to) lists the tree, it reads the time T and git's exclude
// settings first; after the listing it walks every folder of the work
// tree, taking freshctx's own fingerprint of each (before it is read, so
// that no entry made while it is read is missed) and of every one of those
// files, present or not, and reads the settings again. Every fingerprint
// must be settled at T (freshness.Fingerprint Settled): its path changed
// more than the racy window before T, so any change during the listing or
// after it moves it. If a later get finds every fingerprint equal and the
// settings the same, nothing the listing depends on changed since T, so
// the path set is the one listed. Folders git ignores as a whole (build
// output, node_modules, the store) are left out: nothing below them is
// listed while the rules stay as they are, unless the index holds a file
// there, which keeps the proof from being made. Anything the proof cannot
// name (too many folders, an unreadable one, a setting git resolves on
// its own) means no proof: the get lists the tree as before.
//
// A folder's fingerprint moves whenever an entry is made or removed, also
// when its entries end as they were: a file saved by writing another and
// renaming it over the first (as many editors save), a temporary file come
// and gone (the backup gofmt -w makes), git checking a file out anew. A
// proof therefore also keeps a digest of each folder's entries
// (freshness.FolderEntries); a folder that moved and holds the same
// entries lists the same files.
//
// git rewrites the index far more often than it changes the index's files:
// a commit, an add of a changed file, a status that refreshes its stat
// data. A proof therefore also keeps the digest of the index's files as
// listed; a get that finds only the index moved lists the index's files
// again (one git process, no walk of the tree) and, if they are the same,
// knows the path set is too, since the folders and the exclude rules are
// as the proof found them (reindexed).

// proofKey prefixes the meta key of a root's path set proof.
const proofKey = "fabric.path_set_proof:"

// maxProofDirs bounds the folders a proof stamps: a get lstats each, and
// past this many listing the tree is no dearer. maxProofEntries bounds
// the entries a walk reads (folders full of ignored files: node_modules).
var (
	maxProofDirs    = 20_000
	maxProofEntries = 200_000
)

// pathProof is the evidence of one path set.
type pathProof struct {
	digest  string // the path set it proves
	tracked string // the digest of the index's files as listed (pathsDigest)
	at      int64  // file clock (unix ns) as the listing began: every fingerprint is settled at it
	env     string // workspace.PathSetEnv when it was taken
	config  string // workspace.PathSetInputs.Config
	rels    []string
	fps     []string // of rels (root-relative folders and .gitignore files)
	entries []string // of rels: a folder's entries (freshness.FolderEntries), "-" for a file
	files   []string // absolute inputs outside the walk
	ffps    []string // of files
	// tooLarge marks a tree with more folders or entries than a proof
	// stamps: kept, it spares later gets a walk that would give up again
	// (a put tries anew).
	tooLarge bool
}

// tooLargeMark is the kept form of a tooLarge proof.
const tooLargeMark = "too large\n"

// absentFP is the fingerprint of a path that is not there.
const absentFP = "-"

// indexInput is the index's place among a proof's files
// (workspace.PathSetInputs.Files).
const indexInput = 0

// listWithProof lists the work tree as list does and, in git, gathers the
// proof of what it listed (listing.proof; nil when none can be made).
func (s *Service) listWithProof(ctx context.Context) (listing, error) {
	g := s.WS.Git
	if g == nil {
		return s.list(ctx)
	}
	at := freshness.FileClock().UnixNano()
	// A tree changed within the racy window most often changed at its
	// root, which then cannot vouch: nothing more is asked for it.
	if root, err := freshness.FingerprintFile(s.WS.Root); err != nil || !root.Settled(at, s.window()) {
		return s.list(ctx)
	}
	before, err := g.PathSetInputs(ctx) // the settings the listing will use
	if err != nil {
		return s.list(ctx)
	}
	ignored := sync.OnceValues(func() ([]string, error) { return g.IgnoredFolders(ctx) })
	go ignored() // starts now; a call waits for its result
	l, err := s.gitFiles(ctx)
	folders, ierr := ignored()
	if err != nil || ierr != nil {
		return l, err
	}
	if ignoreFileOnlyIndexed(s.WS.Root, l.tracked) {
		return l, nil // git reads it from the index, where no fingerprint sees it
	}
	l.proof = s.walkProof(ctx, at, before, skippable(folders, l.tracked), l.tracked)
	if l.proof != nil && !l.proof.tooLarge {
		l.proof.tracked = pathsDigest(l.tracked)
	}
	return l, nil
}

// ignoreFileOnlyIndexed reports whether a .gitignore of the index is not in
// the work tree: in a sparse checkout (or with skip-worktree set) git
// reads it from the index, and a change of it there (a fast-forward)
// changes what is listed with no folder or file of the tree moving. A
// .gitignore that cannot be looked at counts as one.
func ignoreFileOnlyIndexed(root string, tracked []string) bool {
	for _, f := range tracked {
		if f != ".gitignore" && !strings.HasSuffix(f, "/.gitignore") {
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f))); err != nil {
			return true
		}
	}
	return false
}

// skippable is the ignored folders no file of the index lies in: for
// those, git lists nothing below them.
func skippable(folders, tracked []string) map[string]bool {
	skip := make(map[string]bool, len(folders))
	for _, f := range folders {
		i, _ := slices.BinarySearch(tracked, f+"/")
		if i == len(tracked) || !strings.HasPrefix(tracked[i], f+"/") {
			skip[f] = true
		}
	}
	return skip
}

// walkProof fingerprints the tree's folders, leaving out skip, and the
// inputs named by before, for a listing begun at at (of the index's files
// tracked, sorted). nil when a proof
// cannot be made; a tooLarge one for a tree with too many folders.
func (s *Service) walkProof(ctx context.Context, at int64, before workspace.PathSetInputs, skip map[string]bool, tracked []string) *pathProof {
	ctx, cancel := context.WithCancel(ctx)
	after := sync.OnceValues(func() (workspace.PathSetInputs, error) { return s.WS.Git.PathSetInputs(ctx) })
	go after()     // starts now; a call waits for its result
	defer func() { // a walk that gives up ends git's process, and waits for it
		cancel()
		after()
	}()
	p := &pathProof{at: at, env: workspace.PathSetEnv()}
	walked, err := freshness.WalkFolders(ctx, s.WS.Root, freshness.FolderWalk{
		At: at, Window: s.window(), Files: []string{".gitignore"},
		Skip: func(rel string) bool { return skip[rel] },
		// A folder the index holds as a repository (a gitlink) is listed
		// as that entry whatever its .git holds.
		NestedGit: func(folder string) bool { _, found := slices.BinarySearch(tracked, folder); return !found },
		MaxDirs:   maxProofDirs, MaxEntries: maxProofEntries,
	})
	if errors.Is(err, freshness.ErrTooManyEntries) {
		return &pathProof{tooLarge: true}
	}
	for _, w := range walked {
		p.rels, p.fps, p.entries = append(p.rels, w.Rel), append(p.fps, w.FP), append(p.entries, cmp.Or(w.Entries, absentFP))
	}
	now, aerr := after()
	if err != nil || aerr != nil || now.Config != before.Config || !slices.Equal(now.Files, before.Files) {
		return nil // the settings moved while the tree was listed
	}
	p.config, p.files, p.ffps = before.Config, before.Files, make([]string, len(before.Files))
	for i, f := range before.Files {
		var ok bool
		if p.ffps[i], ok = fpString(freshness.FingerprintFile(f)); !ok {
			return nil
		}
	}
	return p
}

// fpString encodes a fingerprint for a proof; ok is false where the path
// could not be looked at (only an absent path has a fingerprint then).
func fpString(fp freshness.Fingerprint, err error) (string, bool) {
	switch {
	case err == nil:
		return fp.String(), true
	case freshness.Absent(err):
		return absentFP, true
	}
	return "", false
}

// proves reports whether the proof can vouch for a path set: it was
// listed, and every fingerprint was settled when taken (the walk took
// only settled ones; the files outside it are looked at here).
func (p *pathProof) proves(digest string, window time.Duration) bool {
	if p == nil || p.tooLarge || digest == "" {
		return false
	}
	if _, unl := unlisted(digest); unl {
		return false
	}
	for _, s := range p.ffps {
		if s == absentFP {
			continue
		}
		fp, err := freshness.ParseFingerprint(s)
		if err != nil || !fp.Settled(p.at, window) {
			return false
		}
	}
	return true
}

// keepProof keeps p as the proof of digest, the path set listed after it
// was begun, when it can vouch for it.
func (s *Service) keepProof(tx *store.Tx, p *pathProof, digest string) error {
	if p != nil && p.tooLarge {
		return tx.SetMeta(proofKey+s.WS.Root, tooLargeMark)
	}
	if !p.proves(digest, s.window()) {
		return nil
	}
	p.digest = digest
	return tx.SetMeta(proofKey+s.WS.Root, p.encode())
}

func (s *Service) window() time.Duration {
	if s.RacyWindow > 0 {
		return s.RacyWindow
	}
	return freshness.RacyWindow
}

// proofState is what a get found of the root's proof.
type proofState int

const (
	proofBroken   proofState = iota // none, or it no longer holds
	proofHolds                      // it vouches for the path set
	proofTooLarge                   // the tree is too large for one
	proofRecent                     // it broke within the racy window: none could be kept yet
)

// proven is the path set the root's proof vouches for now, if it does:
// the environment and git's exclude settings are as they were and every
// fingerprint is equal, or every one but the index's, whose files are
// the same (reindexed). renewed, when set, is the proof with the index's
// new fingerprint, to be kept in place of the old one.
func (s *Service) proven(ctx context.Context) (digest string, state proofState, renewed *pathProof) {
	if s.WS.Git == nil {
		return "", proofBroken, nil
	}
	var enc string
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		enc, _, err = tx.Meta(proofKey + s.WS.Root)
		return err
	})
	switch {
	case err != nil || enc == "":
		return "", proofBroken, nil
	case enc == tooLargeMark:
		return "", proofTooLarge, nil
	}
	return s.holds(ctx, enc)
}

// holds says whether the encoded proof holds, with the path set it
// vouches for; proofRecent where a path it stamped changed within the
// racy window (a new proof would not be kept: the get only lists). The
// proof it returns, when not nil, is this one renewed with the new
// fingerprints of folders that moved but hold the same entries and of an
// index that holds the same files, where those are settled.
func (s *Service) holds(ctx context.Context, enc string) (string, proofState, *pathProof) {
	p, err := decodeProof(enc)
	if err != nil || p.env != workspace.PathSetEnv() || len(p.rels) == 0 || p.rels[0] != "." { // the walk takes the root first
		return "", proofBroken, nil
	}
	c := &proofCheck{p: p, root: s.WS.Root, now: freshness.FileClock().UnixNano(), window: s.window(), renew: map[int]string{}}
	// The root first, alone: most changes to a tree move it, and then no
	// git process is started.
	root, err := freshness.FingerprintFile(s.WS.Root)
	if state := c.folder(0, root, err); state != proofHolds {
		return "", state, nil
	}
	inputs := sync.OnceValues(func() (workspace.PathSetInputs, error) { return s.WS.Git.PathSetInputs(ctx) })
	go inputs() // starts now; a call waits for its result
	state := proofBroken
	if ctx.Err() == nil {
		state = c.folders()
	}
	in, err := inputs()
	if state != proofHolds {
		return "", state, nil
	}
	if err != nil || in.Config != p.config || !slices.Equal(in.Files, p.files) {
		return "", proofBroken, nil
	}
	indexMoved := false
	for i, f := range p.files {
		got, ok := fpString(freshness.FingerprintFile(f))
		switch {
		case ok && got == p.ffps[i]:
		case i == indexInput && ok && got != absentFP && p.tracked != "":
			indexMoved = true
		default:
			return "", proofBroken, nil
		}
	}
	if indexMoved {
		index, at, ok := s.reindexed(ctx, p)
		if !ok {
			return "", proofBroken, nil
		}
		c.index, c.now = index, max(c.now, at)
	}
	return p.digest, proofHolds, c.renewed()
}

// proofCheck is one check of a proof: the time it began and the
// fingerprints it may renew the proof with.
type proofCheck struct {
	p      *pathProof
	root   string
	now    int64 // the file clock as the check began
	window time.Duration
	renew  map[int]string // rels index → the folder's settled fingerprint now
	index  string         // the index's settled fingerprint now, if it is to be renewed
}

// folders checks every folder and .gitignore file of the proof but the
// root, which holds already (see folder).
func (c *proofCheck) folders() proofState {
	fps, errs := freshness.FingerprintPaths(c.root, c.p.rels[1:])
	state := proofHolds
	for i := 1; i < len(c.p.rels); i++ {
		switch c.folder(i, fps[i-1], errs[i-1]) {
		case proofRecent:
			return proofRecent
		case proofBroken:
			state = proofBroken
		}
	}
	return state
}

// folder checks rels[i], whose fingerprint now is fp: it holds when the
// fingerprint is the proof's, or when a folder holds the entries it held
// (and is then renewed, if its fingerprint is settled); proofRecent when
// it changed within the racy window, proofBroken otherwise.
func (c *proofCheck) folder(i int, fp freshness.Fingerprint, err error) proofState {
	got, ok := fpString(fp, err)
	switch {
	case ok && got == c.p.fps[i]:
		return proofHolds
	case err != nil:
		return proofBroken
	case c.p.entries[i] != absentFP && fp.File.IsDir():
		entries, err := freshness.FolderEntries(filepath.Join(c.root, c.p.rels[i]), fp)
		if err == nil && entries == c.p.entries[i] {
			if fp.Settled(c.now, c.window) {
				c.renew[i] = got
			}
			return proofHolds
		}
	}
	if !fp.Settled(c.now, c.window) {
		return proofRecent
	}
	return proofBroken
}

// renewed is the proof with the fingerprints the check may renew it
// with, at the check's time (every fingerprint it keeps is settled then);
// nil when there are none.
func (c *proofCheck) renewed() *pathProof {
	if len(c.renew) == 0 && c.index == "" {
		return nil
	}
	r := *c.p
	r.at, r.fps, r.ffps = c.now, slices.Clone(c.p.fps), slices.Clone(c.p.ffps)
	for i, fp := range c.renew {
		r.fps[i] = fp
	}
	if c.index != "" {
		r.ffps[indexInput] = c.index
	}
	return &r
}

// reindexed checks a proof whose inputs are all as it found them but the
// index: it lists the index's files again; ok when they are the ones the
// proof listed. The index is fingerprinted before and after that listing;
// where both agree and the fingerprint is settled at the time the listing
// began (at), the listing read that index, and any later write moves it:
// index is that fingerprint, to renew the proof with ("" otherwise: the
// next get lists the index's files again).
func (s *Service) reindexed(ctx context.Context, p *pathProof) (index string, at int64, ok bool) {
	path := p.files[indexInput]
	at = freshness.FileClock().UnixNano()
	before, berr := freshness.FingerprintFile(path)
	tracked, err := s.WS.Git.Tracked(ctx)
	if err != nil {
		return "", 0, false
	}
	slices.Sort(tracked)
	if pathsDigest(tracked) != p.tracked {
		return "", 0, false
	}
	after, aerr := freshness.FingerprintFile(path)
	if berr != nil || aerr != nil || before.String() != after.String() || !before.Settled(at, s.window()) {
		return "", at, true
	}
	return before.String(), at, true
}

// encode writes the proof as lines: a version, the digest, the digest of
// the index's files, the time, the environment and the configuration
// (quoted), then one line per path: "r" (in the root), its fingerprint,
// its entries' digest and its quoted path, or "f" (outside), its
// fingerprint and its quoted path.
func (p *pathProof) encode() string {
	var b strings.Builder
	fmt.Fprintf(&b, "proof3\n%s\n%s\n%d\n%s\n%s\n", p.digest, p.tracked, p.at, strconv.Quote(p.env), strconv.Quote(p.config))
	for i, r := range p.rels {
		b.WriteString("r " + p.fps[i] + " " + p.entries[i] + " " + strconv.Quote(r) + "\n")
	}
	for i, f := range p.files {
		b.WriteString("f " + p.ffps[i] + " " + strconv.Quote(f) + "\n")
	}
	return b.String()
}

func decodeProof(s string) (*pathProof, error) {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) < 6 || lines[0] != "proof3" { // an older one is listed anew
		return nil, errors.New("path set proof: unknown encoding")
	}
	p := &pathProof{digest: lines[1], tracked: lines[2]}
	var err error
	if p.at, err = strconv.ParseInt(lines[3], 10, 64); err != nil {
		return nil, fmt.Errorf("path set proof: time: %w", err)
	}
	if p.env, err = strconv.Unquote(lines[4]); err != nil {
		return nil, fmt.Errorf("path set proof: environment: %w", err)
	}
	if p.config, err = strconv.Unquote(lines[5]); err != nil {
		return nil, fmt.Errorf("path set proof: configuration: %w", err)
	}
	for _, l := range lines[6:] {
		kind, rest, _ := strings.Cut(l, " ")
		fp, quoted, ok := strings.Cut(rest, " ")
		entries := ""
		if kind == "r" {
			entries, quoted, _ = strings.Cut(quoted, " ")
		}
		if !ok || kind == "r" && (entries == "" || quoted == "") {
			return nil, fmt.Errorf("path set proof: malformed line %q", l)
		}
		name, err := strconv.Unquote(quoted)
		if err != nil {
			return nil, fmt.Errorf("path set proof: path %s: %w", quoted, err)
		}
		switch kind {
		case "r":
			p.rels, p.fps, p.entries = append(p.rels, name), append(p.fps, fp), append(p.entries, entries)
		case "f":
			p.files, p.ffps = append(p.files, name), append(p.ffps, fp)
		default:
			return nil, fmt.Errorf("path set proof: malformed line %q", l)
		}
	}
	return p, nil
}
