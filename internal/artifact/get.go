package artifact

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
)

// GetRequest looks an artifact up.
type GetRequest struct {
	Type, Key string
	Mode      Mode
	// Digests are the current versions and digests; an empty one is not
	// compared.
	Digests
}

// Reason is one dimension that made an artifact stale.
type Reason struct {
	Dimension string `json:"dimension"`
	Detail    string `json:"detail"`
}

// SliceResult is one slice of an artifact.
type SliceResult struct {
	Name    string   `json:"name"`
	Fresh   bool     `json:"fresh"`
	Reasons []Reason `json:"reasons,omitempty"`
	Content string   `json:"content"`
}

// GetResult answers a lookup. Content is the artifact's (previous, when
// stale) content; a sliced artifact gives it per slice instead.
type GetResult struct {
	Outcome string        `json:"outcome"`
	Reasons []Reason      `json:"reasons"`
	Content string        `json:"content"`
	Slices  []SliceResult `json:"slices"`
	Mode    Mode          `json:"mode"`
	// Ref is the ref the artifact was put on; SharedTree is set when it
	// answers from another ref because its tree is the current tree.
	Ref        string `json:"ref,omitempty"`
	Commit     string `json:"commit,omitempty"`
	SharedTree bool   `json:"shared_tree,omitempty"`
}

// slice is a stored slice with its provenance.
type slice struct {
	id                             int64
	name, ref, commit, tree, paths string
	digests                        Digests
	ttl                            time.Duration
	created                        time.Time
	stamped                        time.Time
	inline                         []byte
	blob                           string
	invalidated                    bool
	deps                           []freshness.FileStamp
}

const sliceColumns = `id, slice, ref, commit_sha, tree, path_set, agent_version, config_digest, policy_digest,
	entitlement_digest, ttl_ns, created_at, stamped_at, content, coalesce(content_blob, ''), invalidated`

// Get evaluates an artifact against the workspace now and counts the
// outcome. Its files are judged by their own fingerprints and bytes; one
// git process tells the ref, commit and tree.
func (s *Service) Get(ctx context.Context, req GetRequest) (*GetResult, error) {
	if req.Mode == "" {
		req.Mode = Default
	}
	spec := SpecOf(req.Type)
	if spec.KeyIsFile {
		if key, err := s.resolve([]string{req.Key}); err == nil {
			req.Key = key[0]
		}
	}
	// Where HEAD is (a git process) is read beside the slices and their
	// files too, and so is the path set: from its proof (proof.go) or else
	// listed (two git processes), the listed files looked for once the
	// slices' files are checked. A get that needs neither any more ends
	// their git on return.
	bgCtx, stop := context.WithCancel(ctx)
	here := sync.OnceValues(func() (place, error) { return s.here(bgCtx) })
	go here() // starts now; a call waits for its result
	listed := func() (listing, error) { return listing{}, nil }
	if spec.PathSet {
		listed = sync.OnceValues(func() (listing, error) {
			digest, state, renewed := s.proven(bgCtx)
			if state == proofHolds {
				return listing{proven: digest, proof: renewed}, nil
			}
			if state == proofTooLarge || state == proofRecent {
				return s.list(bgCtx)
			}
			return s.listWithProof(bgCtx)
		})
		go listed() // starts now; a call waits for its result
	}
	defer func() {
		// Nothing of the get's outlives it: its git processes are ended
		// and their goroutines (which may write git's own caches) waited for.
		stop()
		here()
		listed()
	}()
	// The index's files are looked for once the slices' files are checked:
	// the snapshot answers for every file it fingerprinted then.
	var proof *pathProof // a proof to keep with the path set it proves
	var proved string
	pathSet := func(snap *freshness.Snapshot) (string, error) {
		l, err := listed()
		if err != nil || !spec.PathSet {
			return "", err
		}
		d, err := l.digest(ctx, snap)
		if err == nil {
			proof, proved = l.proof, d
		}
		return d, err
	}
	repo, found, ks, err := s.lookup(ctx, req)
	if err != nil {
		return nil, err
	}
	res := &GetResult{Outcome: Cold, Reasons: []Reason{}, Slices: []SliceResult{}, Mode: req.Mode}
	if len(found) > 0 { // else cold, whatever HEAD and the tree say
		if err := s.answer(ctx, spec, req, found, here, pathSet, res); err != nil {
			return nil, err
		}
	}
	stop() // a cold get waits for neither
	if s.Store.ReadOnly() {
		return res, nil // no bookkeeping (keepBooks)
	}
	if err := s.keepBooks(ctx, repo, req, ks, found, res, proof, proved); err != nil {
		return nil, err
	}
	return res, nil
}

// keepBooks keeps what a get leaves for later ones: the key's pack, the
// path set's proof, and the lookup's event for artifact stats. A store
// that cannot be written (read-only, or a full disk) goes without, and
// the get's answer stands: the lookup is not counted, and the pack and the
// proof are made again by a later get.
func (s *Service) keepBooks(ctx context.Context, repo string, req GetRequest, ks keyState, found []slice,
	res *GetResult, proof *pathProof, proved string) error {
	err := s.Store.Update(ctx, func(tx *store.Tx) error {
		if err := keepPack(ctx, tx, repo, req.Type, req.Key, ks, found); err != nil {
			return err
		}
		if err := s.keepProof(tx, proof, proved); err != nil {
			return err
		}
		return event(ctx, tx, res.Outcome, repo, req.Type, req.Key)
	})
	if store.Unwritable(err) {
		return nil
	}
	return err
}

// lookup reads every stored slice of the key, on every ref.
func (s *Service) lookup(ctx context.Context, req GetRequest) (string, []slice, keyState, error) {
	repo, err := s.repoID(ctx)
	if err != nil {
		return "", nil, keyState{}, err
	}
	var found []slice
	var ks keyState
	err = s.Store.View(ctx, func(tx *store.Tx) error {
		found, ks, err = readSlices(ctx, tx, repo, req.Type, req.Key)
		return err
	})
	return repo, found, ks, err
}

// answer picks the slices that answer for the current ref and judges them
// against the work tree into res.
func (s *Service) answer(ctx context.Context, spec Spec, req GetRequest, found []slice, here func() (place, error),
	pathSet func(*freshness.Snapshot) (string, error), res *GetResult) error {
	snap, err := s.snapshot(ctx, depPaths(found))
	if err != nil {
		return err
	}
	at, err := here()
	if err != nil {
		return err
	}
	sls, shared, err := s.choose(ctx, snap, &at, req.Mode, found)
	if err != nil || len(sls) == 0 {
		return err
	}
	res.SharedTree, res.Ref, res.Commit = shared, sls[0].ref, sls[0].commit
	return s.evaluate(ctx, snap, at, spec, req, sls, pathSet, res)
}

func depPaths(sls []slice) []string {
	var paths []string
	seen := map[string]bool{}
	for _, sl := range sls {
		for _, d := range sl.deps {
			if !seen[d.Path] {
				seen[d.Path] = true
				paths = append(paths, d.Path)
			}
		}
	}
	return paths
}

// choose picks the slices on the current ref, or else (but in strict mode)
// those of the most recent ref whose tree is the current tree.
func (s *Service) choose(ctx context.Context, snap *freshness.Snapshot, at *place, mode Mode, found []slice) ([]slice, bool, error) {
	var mine []slice
	for _, sl := range found {
		if sl.ref == at.ref {
			mine = append(mine, sl)
		}
	}
	if len(mine) > 0 || len(found) == 0 || mode == Strict || at.commit == "" {
		return mine, false, nil
	}
	tree := at.tree
	ref, newest := "", time.Time{}
	for _, sl := range found {
		if sl.tree == tree && sl.created.After(newest) {
			ref, newest = sl.ref, sl.created
		}
	}
	var shared []slice
	for _, sl := range found {
		if ref != "" && sl.ref == ref {
			shared = append(shared, sl)
		}
	}
	return shared, len(shared) > 0, nil
}

func querySlices(ctx context.Context, tx *store.Tx, where string, args ...any) ([]slice, error) {
	// Sorted here, not by ORDER BY (see freshness.LoadFiles).
	rows, err := tx.QueryContext(ctx, `SELECT `+sliceColumns+` FROM artifacts WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("look up artifact: %w", err)
	}
	var out []slice
	var ids []int64
	for rows.Next() {
		var sl slice
		var ttl, created, stamped int64
		d := &sl.digests
		if err := rows.Scan(&sl.id, &sl.name, &sl.ref, &sl.commit, &sl.tree, &sl.paths, &d.AgentVersion, &d.ConfigDigest,
			&d.PolicyDigest, &d.EntitlementDigest, &ttl, &created, &stamped, &sl.inline, &sl.blob, &sl.invalidated); err != nil {
			rows.Close()
			return nil, err
		}
		sl.ttl, sl.created, sl.stamped = time.Duration(ttl), time.Unix(0, created), time.Unix(0, stamped)
		out = append(out, sl)
		ids = append(ids, sl.id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b slice) int { return cmp.Or(strings.Compare(a.name, b.name), cmp.Compare(a.id, b.id)) })
	deps, err := freshness.LoadFiles(ctx, tx, "artifact_deps", "artifact_id", ids)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].deps = deps[out[i].id]
	}
	return out, nil
}

// evaluate judges every slice against the snapshot and sets the outcome;
// pathSet gives the tree's path set when the artifact's type needs it.
func (s *Service) evaluate(ctx context.Context, snap *freshness.Snapshot, at place, spec Spec, req GetRequest, sls []slice,
	pathSet func(*freshness.Snapshot) (string, error), res *GetResult) error {
	stamps := make([]freshness.Stamp, len(sls))
	for i, sl := range sls {
		stamps[i] = freshness.Stamp{At: sl.stamped, Stamped: sl.stamped, Files: sl.deps}
	}
	checks, err := snap.CheckMany(ctx, stamps)
	if err != nil {
		return err
	}
	paths, err := pathSet(snap) // listed while the files were checked
	if err != nil {
		return err
	}
	now := s.now()
	res.Outcome = Hit
	for i, sl := range sls {
		reasons := judge(at, spec, req, sl, checks[i], paths, now)
		content, err := s.load(sl.inline, sl.blob)
		if err != nil {
			return err
		}
		if len(reasons) > 0 {
			res.Outcome = Stale
			for _, r := range reasons {
				if sl.name != "" {
					r.Detail = "slice " + sl.name + ": " + r.Detail
				}
				res.Reasons = append(res.Reasons, r)
			}
		}
		if sl.name == "" {
			res.Content = content
			continue
		}
		res.Slices = append(res.Slices, SliceResult{Name: sl.name, Fresh: len(reasons) == 0, Reasons: reasons, Content: content})
	}
	return snap.Flush(ctx)
}

// judge lists every failing dimension of one slice, in the seed's order;
// check is its dependencies checked against the snapshot.
func judge(at place, spec Spec, req GetRequest, sl slice, check freshness.Result, pathSet string, now time.Time) []Reason {
	var rs []Reason
	add := func(dim, format string, args ...any) {
		rs = append(rs, Reason{Dimension: dim, Detail: fmt.Sprintf(format, args...)})
	}
	commitMoved, treeMoved := sl.commit != at.commit, sl.tree != at.tree
	if commitMoved && (req.Mode == Strict || spec.CommitPrimary) {
		add(DimCommit, "%s → %s", short(sl.commit), short(at.commit))
	}
	if treeMoved && req.Mode == Strict {
		add(DimTree, "%s → %s", short(sl.tree), short(at.tree))
	}
	if spec.PathSet {
		why, ok := unlisted(pathSet)
		if !ok {
			why, ok = unlisted(sl.paths)
		}
		switch {
		case ok:
			add(DimPathSet, "the work tree's files were not listed (%s)", why)
		case sl.paths != pathSet:
			add(DimPathSet, "files were added, removed or moved")
		}
	}
	for _, f := range check.Files {
		if f.Label != freshness.Fresh {
			add(DimFile, "%s: %s (%s)", f.Path, f.Reason, f.Label)
		}
	}
	if req.Mode != Relaxed {
		compare := func(dim, was, now string) {
			if now != "" && now != was {
				add(dim, "%q → %q", was, now)
			}
		}
		compare(DimAgent, sl.digests.AgentVersion, req.AgentVersion)
		compare(DimConfig, sl.digests.ConfigDigest, req.ConfigDigest)
		compare(DimPolicy, sl.digests.PolicyDigest, req.PolicyDigest)
		compare(DimEntitlement, sl.digests.EntitlementDigest, req.EntitlementDigest)
	}
	if sl.ttl > 0 && now.Sub(sl.created) > sl.ttl {
		add(DimTTL, "expired %s ago (ttl %s)", now.Sub(sl.created.Add(sl.ttl)).Round(time.Second), sl.ttl)
	}
	if sl.invalidated {
		add(DimInvalidated, "refresh forced")
	}
	return rs
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	if sha == "" {
		return "(none)"
	}
	return sha
}
