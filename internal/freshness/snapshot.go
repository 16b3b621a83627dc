package freshness

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/freshctx/freshctx/internal/sha"
	"github.com/freshctx/freshctx/internal/workspace"
)

// DefaultMaxHashSize is the largest file hashed; larger ones fall to tier 3.
const DefaultMaxHashSize = 256 << 20

// hashTries bounds how often a file that moves while it is hashed is read
// again before it is called unsettled.
const hashTries = 3

// Options configure a Snapshot. Zero values take the defaults.
type Options struct {
	FS          FS               // default OSFS
	Cache       StatCache        // default: an empty in-memory cache
	Now         func() time.Time // default time.Now
	MaxHashSize int64            // default DefaultMaxHashSize
	// RacyWindow overrides the package's RacyWindow (tests on a file system
	// with a known timestamp granularity use a shorter one).
	RacyWindow time.Duration
	// Git asks git for the repository state (one status of the whole work
	// tree): needed only to stamp GitStamp. Checking never needs git.
	Git bool
	// Status, when set with Git, is the whole-tree status to use instead of
	// running one: a caller that started it earlier (as the command a
	// record describes ended) passes how to wait for it.
	Status func() (*workspace.Status, error)
}

// Snapshot is the workspace read once: each path's fingerprint and digest
// memoised on first use, and git facts when asked for.
type Snapshot struct {
	ws           *workspace.Workspace
	realRoot     string // the root with symlinks resolved
	rootSlash    string // the root and a separator, where paths join by concatenation
	opt          Options
	now          time.Time
	rootExists   bool
	status       *workspace.Status // nil outside git, when not asked for, or when git failed
	gitErr       error
	tree         string // HEAD's tree and the repository id, once asked for
	repoID       string
	identityRead bool
	cache        map[string]CacheEntry
	loaded       map[string]bool       // paths whose cache entries were read
	dirty        map[string]CacheEntry // entries to save
	seen         map[string]*observation
	dirs         sync.Map // directory → resolves inside the root
}

// observation is a path as this snapshot saw it.
type observation struct {
	fp      Fingerprint
	statErr error
	digest  sha.Sum
	hashed  bool  // the digest was asked for
	readErr error // why the content could not be hashed, if it could not
	notes   Note
	// dirLatest is, for a directory, the newest mtime or ctime under it.
	dirLatest int64
}

// NewSnapshot prepares to read the workspace. With Options.Git it runs one
// git status of the whole work tree; a failing git is not fatal, and GitErr
// says why.
func NewSnapshot(ctx context.Context, ws *workspace.Workspace, paths []string, opt Options) (*Snapshot, error) {
	if opt.FS == nil {
		opt.FS = OSFS{}
	}
	if opt.Cache == nil {
		opt.Cache = &MemCache{}
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.MaxHashSize == 0 {
		opt.MaxHashSize = DefaultMaxHashSize
	}
	if opt.RacyWindow == 0 {
		opt.RacyWindow = RacyWindow
	}
	s := &Snapshot{ws: ws, opt: opt, now: opt.Now(), dirty: map[string]CacheEntry{}, seen: map[string]*observation{},
		cache: map[string]CacheEntry{}, loaded: map[string]bool{}}
	if filepath.Separator == '/' {
		s.rootSlash = strings.TrimSuffix(ws.Root, "/") + "/"
	}
	fi, err := opt.FS.Stat(ws.Root)
	s.rootExists = err == nil && fi.IsDir()
	if !s.rootExists {
		return s, nil
	}
	if real, err := filepath.EvalSymlinks(ws.Root); err == nil {
		s.realRoot = real
	} else {
		s.realRoot = ws.Root
	}
	if ws.Git != nil && opt.Git {
		ws.Git.Prefetch(ctx) // the git folders, for Git's identity, alongside the status
		if opt.Status != nil {
			s.status, s.gitErr = opt.Status()
		} else {
			s.status, s.gitErr = ws.Git.Status(ctx)
		}
	}
	return s, nil
}

// loadCache reads the stat-cache entries of paths not read yet, in one
// query.
func (s *Snapshot) loadCache(ctx context.Context, paths []string) error {
	var need []string
	for _, p := range paths {
		if !s.loaded[p] {
			s.loaded[p] = true
			need = append(need, p)
		}
	}
	if len(need) == 0 {
		return nil
	}
	got, err := s.opt.Cache.Load(ctx, s.ws.Root, need)
	if err != nil {
		return err
	}
	for p, e := range got {
		if _, ok := s.cache[p]; !ok {
			s.cache[p] = e
		}
	}
	return nil
}

// Now is the time the snapshot was taken.
func (s *Snapshot) Now() time.Time { return s.now }

// Window is the racy window this snapshot applies.
func (s *Snapshot) Window() time.Duration { return s.opt.RacyWindow }

// GitErr is why git could not be asked, if it could not.
func (s *Snapshot) GitErr() error { return s.gitErr }

// Status is the git status the snapshot read, or nil.
func (s *Snapshot) Status() *workspace.Status { return s.status }

// Git returns the repository state. Tree and repo id are read only when
// withIdentity is set: one git process, once per snapshot (the id is
// cached in the git folder per commit).
func (s *Snapshot) Git(ctx context.Context, withIdentity bool) (GitStamp, error) {
	if s.status == nil {
		return GitStamp{}, nil
	}
	g := GitStamp{IsRepo: true, Branch: s.status.Branch, Head: s.status.Head, Dirty: s.status.Dirty()}
	if !withIdentity || g.Head == "" {
		return g, nil
	}
	if !s.identityRead {
		tree, id, err := s.ws.Git.Identity(ctx, g.Head)
		if err != nil {
			return g, fmt.Errorf("read repository identity: %w", err)
		}
		s.tree, s.repoID, s.identityRead = tree, id, true
	}
	g.Tree, g.RepoID = s.tree, s.repoID
	return g, nil
}

// Fingerprint takes freshctx's own stat of a root-relative path: lstat,
// and for a symlink its target string and a stat through it.
func (s *Snapshot) Fingerprint(rel string) (Fingerprint, error) {
	if s.rootSlash != "" && rel != "" && rel != "." {
		return fingerprint(s.opt.FS, s.rootSlash+rel) // rel is clean: no Join needed
	}
	return fingerprint(s.opt.FS, s.ws.Abs(rel))
}

func fingerprint(fsys FS, abs string) (Fingerprint, error) {
	l, err := fsys.Lstat(abs)
	if err != nil {
		return Fingerprint{}, err
	}
	if !l.IsLink() {
		return Fingerprint{File: l}, nil
	}
	fp := Fingerprint{Link: l}
	if fp.Target, err = fsys.Readlink(abs); err != nil {
		return Fingerprint{}, err
	}
	if fp.File, err = fsys.Stat(abs); err != nil {
		return Fingerprint{}, err // dangling or looping: nothing to read
	}
	return fp, nil
}

// inside reports whether rel, with every symlink resolved, is still inside
// the workspace root. Directories are resolved once per snapshot; the file
// itself only when it is a symlink. Safe for concurrent use.
func (s *Snapshot) inside(rel string, fp Fingerprint) bool {
	dir := path.Dir(rel)
	if !s.dirInside(dir) {
		return false
	}
	if !fp.IsLink() {
		return true
	}
	return s.within(s.ws.Abs(rel))
}

func (s *Snapshot) dirInside(dir string) bool {
	if dir == "." {
		return true
	}
	if v, ok := s.dirs.Load(dir); ok {
		return v.(bool)
	}
	ok := s.within(s.ws.Abs(dir))
	s.dirs.Store(dir, ok)
	return ok
}

func (s *Snapshot) within(abs string) bool {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return false
	}
	r, err := filepath.Rel(s.realRoot, real)
	return err == nil && r != ".." && !strings.HasPrefix(r, "../") && !filepath.IsAbs(r)
}

// observe fingerprints and, when wantDigest, hashes a path once per
// snapshot.
func (s *Snapshot) observe(rel string, wantDigest bool) *observation {
	o, ok := s.seen[rel]
	if !ok {
		o = &observation{}
		o.fp, o.statErr = s.Fingerprint(rel)
		s.seen[rel] = o
	}
	if wantDigest && !o.hashed && o.statErr == nil && !o.fp.File.IsDir() {
		o.hashed = true
		if !s.inside(rel, o.fp) {
			o.notes |= NoteOutsideRoot
			o.readErr = errors.New("resolves outside the workspace root")
			return o
		}
		o.fp, o.digest, o.readErr = s.digestOf(rel, o.fp)
		if errors.Is(o.readErr, errUnsettled) {
			o.notes |= NoteUnsettled
		}
	}
	return o
}

var errUnsettled = errors.New("kept changing while being read")

// digestOf returns the file's SHA-256 and the fingerprint it goes with:
// from the stat cache when its entry vouches for fp, else by reading the
// file and stat'ing it again — a file that moved meanwhile is read again,
// up to hashTries times.
func (s *Snapshot) digestOf(rel string, fp Fingerprint) (Fingerprint, sha.Sum, error) {
	for range hashTries {
		if e, ok := s.cache[rel]; ok && e.Trusted(fp, s.opt.RacyWindow) {
			return fp, e.Digest, nil
		}
		d, err := s.hash(rel, fp.File)
		if err != nil {
			return fp, sha.Sum{}, err
		}
		after, err := s.Fingerprint(rel)
		if err != nil {
			return fp, sha.Sum{}, err
		}
		if after == fp {
			e := CacheEntry{FP: fp, Digest: d, Recorded: s.opt.Now().UnixNano()}
			s.cache[rel], s.dirty[rel] = e, e
			return fp, d, nil
		}
		fp = after
	}
	return fp, sha.Sum{}, errUnsettled
}

// hash reads a regular file within the size limit.
func (s *Snapshot) hash(rel string, info FileInfo) (sha.Sum, error) {
	if !info.Mode.IsRegular() {
		return sha.Sum{}, notRegular(info.Mode)
	}
	if info.Size > s.opt.MaxHashSize {
		return sha.Sum{}, ErrTooLarge
	}
	f, err := s.opt.FS.Open(s.ws.Abs(rel))
	if err != nil {
		return sha.Sum{}, err
	}
	defer f.Close()
	d, n, err := sha.Reader(f)
	if err != nil {
		return sha.Sum{}, err
	}
	if n != info.Size {
		return sha.Sum{}, errUnsettled
	}
	return d, nil
}

// Stamp records the current state of paths (root-relative), git facts
// included when the snapshot asked git. since is when the item's
// production started: a file modified at or after it is noted
// NoteChangedDuringRun. A zero since checks nothing.
func (s *Snapshot) Stamp(ctx context.Context, paths []string, since time.Time) (Stamp, error) {
	g, err := s.Git(ctx, true)
	if err != nil {
		return Stamp{}, err
	}
	if err := s.loadCache(ctx, paths); err != nil {
		return Stamp{}, err
	}
	at := since
	if at.IsZero() {
		at = s.now
	}
	st := Stamp{At: at, Stamped: s.now, Git: g, Files: make([]FileStamp, 0, len(paths))}
	for _, p := range paths {
		st.Files = append(st.Files, s.stampFile(ctx, p, since))
	}
	return st, nil
}

func (s *Snapshot) stampFile(ctx context.Context, rel string, since time.Time) FileStamp {
	out := FileStamp{Path: rel}
	o := s.observe(rel, true)
	if o.statErr != nil {
		return out // absent or unreachable: recorded as not existing
	}
	out.Existed, out.IsDir = true, o.fp.File.IsDir()
	changed := o.fp
	if out.IsDir {
		s.observeDir(ctx, rel, o)
		changed.File.ModTime = max(changed.File.ModTime, o.dirLatest)
	}
	out.Size, out.ModTime = o.fp.File.Size, o.fp.File.ModTime
	out.Digest, out.FP, out.Notes = o.digest, o.fp, o.notes
	if !since.IsZero() && changed.ChangedSince(since) {
		out.Notes |= NoteChangedDuringRun
	}
	return out
}

// observeDir gives a directory's observation its digest (dirDigest), once
// per snapshot. A directory that resolves outside the root is not read.
func (s *Snapshot) observeDir(ctx context.Context, rel string, o *observation) {
	if o.hashed {
		return
	}
	o.hashed = true
	if !s.inside(rel, o.fp) {
		o.notes |= NoteOutsideRoot
		o.readErr = ErrOutsideRoot
		return
	}
	o.digest, o.dirLatest, o.readErr = s.dirDigest(ctx, rel, o.fp.File)
	switch {
	case errors.Is(o.readErr, errUnsettled):
		o.notes |= NoteUnsettled
	case errors.Is(o.readErr, ErrTooManyEntries):
		o.notes |= NoteNotStamped
	case errors.Is(o.readErr, ErrOutsideRoot):
		o.notes |= NoteOutsideRoot // a link under it leaves the root
	case errors.Is(o.readErr, ErrLinkedFolder):
		o.notes |= NoteLinkedFolder
	}
}

// Flush saves the stat-cache entries this snapshot computed.
func (s *Snapshot) Flush(ctx context.Context) error {
	if len(s.dirty) == 0 {
		return nil
	}
	err := s.opt.Cache.Save(ctx, s.ws.Root, s.dirty)
	s.dirty = map[string]CacheEntry{}
	return err
}

func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist)
}
