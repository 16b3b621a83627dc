package freshness

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/freshctx/freshctx/internal/digest"
	"github.com/freshctx/freshctx/internal/workspace"
)

// DefaultMaxHashSize is the largest file hashed; larger ones fall to tier 3.
const DefaultMaxHashSize = 256 << 20

// Options configure a Snapshot. Zero values take the defaults.
type Options struct {
	FS          FS               // default OSFS
	Cache       StatCache        // default: an empty in-memory cache
	Now         func() time.Time // default time.Now
	MaxHashSize int64            // default DefaultMaxHashSize
	// WholeTree asks git for the whole work tree even when paths are given,
	// so GitStamp.Dirty speaks for the whole repository (needed at capture).
	WholeTree bool
	// NoGit skips git: for callers that only hash (DigestMany) and ask git
	// themselves. Check then relies on content alone.
	NoGit bool
}

// Snapshot is the workspace read once: git facts, and each file's stat and
// digest memoised on first use.
type Snapshot struct {
	ws         *workspace.Workspace
	opt        Options
	now        time.Time
	rootExists bool
	status     *workspace.Status // nil outside git or when git failed
	gitErr     error
	tree       string // HEAD's tree, once asked for
	treeRead   bool
	repoID     string // once asked for
	repoRead   bool
	cache      map[string]CacheEntry
	loaded     map[string]bool       // paths whose cache entries were read
	dirty      map[string]CacheEntry // entries to save
	seen       map[string]observation
}

// observation is a file as this snapshot saw it.
type observation struct {
	info    FileInfo
	statErr error
	digest  digest.Digest
	readErr error // why the content could not be hashed, if it could not
}

// NewSnapshot reads the workspace state relevant to paths (root-relative):
// one git status, one stat-cache load. A failing git is not fatal: the
// snapshot then relies on content alone, and GitErr says why.
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
	s := &Snapshot{ws: ws, opt: opt, now: opt.Now(), dirty: map[string]CacheEntry{}, seen: map[string]observation{}}
	fi, err := opt.FS.Stat(ws.Root)
	s.rootExists = err == nil && fi.IsDir()
	if !s.rootExists {
		return s, nil
	}
	if ws.Git != nil && !opt.NoGit {
		scope := paths
		if opt.WholeTree {
			scope = nil
		}
		s.status, s.gitErr = ws.Git.Status(ctx, scope)
	}
	s.cache = map[string]CacheEntry{}
	s.loaded = map[string]bool{}
	return s, nil
}

// loadCache reads the stat-cache entries of paths not read yet, in one
// query. It is called only for files the git tier could not decide, so a
// check of clean files touches no database.
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

// GitErr is why git could not be asked, if it could not.
func (s *Snapshot) GitErr() error { return s.gitErr }

// Status is the git status the snapshot read, or nil.
func (s *Snapshot) Status() *workspace.Status { return s.status }

// Tree returns HEAD's tree hash ("" outside git or with no commits), asking
// git once per snapshot.
func (s *Snapshot) Tree(ctx context.Context) (string, error) {
	if s.treeRead || s.status == nil || s.status.Head == "" {
		return s.tree, nil
	}
	tree, err := s.ws.Git.Tree(ctx)
	if err != nil {
		return "", fmt.Errorf("read tree: %w", err)
	}
	s.tree, s.treeRead = tree, true
	return tree, nil
}

// Git returns the repository state. Tree and repo id cost one git process
// each and are read only when withIdentity is set.
func (s *Snapshot) Git(ctx context.Context, withIdentity bool) (GitStamp, error) {
	if s.status == nil {
		return GitStamp{}, nil
	}
	g := GitStamp{IsRepo: true, Branch: s.status.Branch, Head: s.status.Head, Dirty: s.status.Dirty()}
	if !withIdentity || g.Head == "" {
		return g, nil
	}
	var err error
	if g.Tree, err = s.Tree(ctx); err != nil {
		return g, err
	}
	if !s.repoRead {
		if s.repoID, err = s.ws.Git.RepoID(ctx); err != nil {
			return g, fmt.Errorf("read repo id: %w", err)
		}
		s.repoRead = true
	}
	g.RepoID = s.repoID
	return g, nil
}

// observe stats and, when needed, hashes a file once per snapshot.
func (s *Snapshot) observe(rel string, wantDigest bool) observation {
	if o, ok := s.seen[rel]; ok && (!wantDigest || !o.digest.IsZero() || o.readErr != nil || o.statErr != nil) {
		return o
	}
	var o observation
	o.info, o.statErr = s.opt.FS.Stat(s.ws.Abs(rel))
	if o.statErr == nil && wantDigest && !o.info.IsDir() {
		o.digest, o.readErr = s.digestOf(rel, o.info)
	}
	s.seen[rel] = o
	return o
}

// digestOf returns the file's SHA-256, from the stat cache when its entry is
// trusted, else by reading the file (and queueing a new cache entry).
func (s *Snapshot) digestOf(rel string, info FileInfo) (digest.Digest, error) {
	if e, ok := s.cache[rel]; ok && e.Trusted(info) {
		return e.Digest, nil
	}
	if info.Size > s.opt.MaxHashSize {
		return digest.Digest{}, ErrTooLarge
	}
	if !info.Mode.IsRegular() {
		return digest.Digest{}, fmt.Errorf("not a regular file (%v)", info.Mode.Type())
	}
	f, err := s.opt.FS.Open(s.ws.Abs(rel))
	if err != nil {
		return digest.Digest{}, err
	}
	defer f.Close()
	d, n, err := digest.Reader(f)
	if err != nil {
		return digest.Digest{}, err
	}
	if n != info.Size {
		// Changed while we read it: the digest stands for no stable state.
		return digest.Digest{}, fmt.Errorf("changed while being read")
	}
	e := CacheEntry{Info: info, Digest: d, Recorded: s.opt.Now().UnixNano()}
	s.cache[rel] = e
	s.dirty[rel] = e
	return d, nil
}

// Stamp records the current state of paths (root-relative) at the snapshot's
// time, git facts included.
func (s *Snapshot) Stamp(ctx context.Context, paths []string) (Stamp, error) {
	g, err := s.Git(ctx, true)
	if err != nil {
		return Stamp{}, err
	}
	if err := s.loadCache(ctx, paths); err != nil {
		return Stamp{}, err
	}
	st := Stamp{At: s.now, Git: g, Files: make([]FileStamp, 0, len(paths))}
	for _, p := range paths {
		st.Files = append(st.Files, s.stampFile(p))
	}
	return st, nil
}

func (s *Snapshot) stampFile(rel string) FileStamp {
	out := FileStamp{Path: rel}
	o := s.observe(rel, true)
	if o.statErr != nil {
		return out // absent or unreachable: recorded as not existing
	}
	out.Existed, out.IsDir = true, o.info.IsDir()
	out.Size, out.ModTime = o.info.Size, o.info.ModTime
	out.Digest = o.digest
	out.GitClean = s.status != nil && s.status.Head != "" && !out.IsDir && s.status.Clean(rel)
	return out
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
