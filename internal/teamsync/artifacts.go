package teamsync

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/freshctx/freshctx/internal/artifact"
	"github.com/freshctx/freshctx/internal/redact"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/team"
	"github.com/freshctx/freshctx/internal/workspace"
)

// EnqueueArtifact queues an artifact just put for the team store, unless
// none is configured, team.publish is none, or the work tree is no git
// repository (nothing another clone could match). It reports whether it
// queued it.
func EnqueueArtifact(ctx context.Context, st *store.Store, s Settings, repo, ref, typ, key string) (bool, error) {
	if s.URL == "" || s.Publish == "none" || repo == "" || strings.HasPrefix(repo, "path:") {
		return false, nil
	}
	err := st.Update(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO team_artifact_outbox (repo, ref, type, key, queued_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT DO UPDATE SET queued_at = excluded.queued_at`, repo, ref, typ, key, tx.Now.UnixNano())
		return err
	})
	return err == nil, err
}

type queuedArtifact struct {
	repo, ref, typ, key string
	at                  int64 // queued_at
}

// publishArtifacts sends every queued artifact as its slices are stored
// now: redacted, sealed, signed when this machine holds the team's key.
// One that names a sensitive file, or an input no other work tree could
// match, is dropped from the queue unsent.
func publishArtifacts(ctx context.Context, ts *team.Store, st *store.Store, arts *artifact.Service, who publisher) (int, error) {
	published := 0
	for {
		q, err := queuedArtifacts(ctx, st, batch)
		if err != nil || len(q) == 0 {
			return published, err
		}
		var out []team.Artifact
		for _, a := range q {
			x, err := arts.Export(ctx, a.repo, a.ref, a.typ, a.key)
			if errors.Is(err, artifact.ErrGone) || errors.Is(err, artifact.ErrNotShareable) {
				continue
			}
			if err != nil {
				return published, err
			}
			if sharedArtifact(x) {
				out = append(out, who.artifact(x))
			}
		}
		if len(out) > 0 {
			n, err := ts.PublishArtifacts(ctx, out)
			if err != nil {
				noteArtifactFailure(ctx, st, q, err)
				return published, err
			}
			published += n
		}
		if err := dequeueArtifacts(ctx, st, q); err != nil {
			return published, err
		}
	}
}

// sharedArtifact reports whether an artifact may leave the machine: none
// of its inputs is a sensitive file.
func sharedArtifact(x *artifact.Exported) bool {
	for _, sl := range x.Slices {
		for _, in := range sl.Inputs {
			if workspace.Sensitive(in.Path) != "" {
				return false
			}
		}
	}
	return true
}

// publisher is who publishes, and the key they sign with (nil: none).
type publisher struct {
	author, machine string
	ci              bool
	key             ed25519.PrivateKey
}

// artifact is x as the team store takes it: redacted, sealed and signed.
func (p publisher) artifact(x *artifact.Exported) team.Artifact {
	a := team.Artifact{RepoID: x.Repo, Type: x.Type, Key: x.Key, Commit: x.Commit, Tree: x.Tree,
		Author: p.author, Machine: p.machine, CI: p.ci}
	for _, sl := range x.Slices {
		text, _ := redact.String(sl.Content)
		y := team.ArtifactSlice{Name: sl.Name, PathSet: sl.PathSet, AgentVersion: sl.AgentVersion, ConfigDigest: sl.ConfigDigest,
			PolicyDigest: sl.PolicyDigest, EntitlementDigest: sl.EntitlementDigest, TTLSeconds: int64(sl.TTL / time.Second), Content: text}
		for _, in := range sl.Inputs {
			y.Inputs = append(y.Inputs, team.File{Path: in.Path, SHA256: in.SHA256, Existed: true})
		}
		if sl.CreatedAt.After(a.CreatedAt) {
			a.CreatedAt = sl.CreatedAt
		}
		a.Slices = append(a.Slices, y)
	}
	a.CreatedAt = a.CreatedAt.UTC().Truncate(time.Microsecond)
	a.Seal()
	if p.key != nil {
		a.Sign(p.key)
	}
	return a
}

func queuedArtifacts(ctx context.Context, st *store.Store, limit int) ([]queuedArtifact, error) {
	var out []queuedArtifact
	err := st.View(ctx, func(tx *store.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT repo, ref, type, key, queued_at FROM team_artifact_outbox ORDER BY queued_at LIMIT ?`, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var a queuedArtifact
			if err := rows.Scan(&a.repo, &a.ref, &a.typ, &a.key, &a.at); err != nil {
				return err
			}
			out = append(out, a)
		}
		return rows.Err()
	})
	return out, err
}

// dequeueArtifacts takes sent artifacts off the queue — unless one was
// put again since it was read, which is sent next time.
func dequeueArtifacts(ctx context.Context, st *store.Store, q []queuedArtifact) error {
	return st.Update(ctx, func(tx *store.Tx) error {
		for _, a := range q {
			if _, err := tx.ExecContext(ctx, `DELETE FROM team_artifact_outbox
				WHERE repo = ? AND ref = ? AND type = ? AND key = ? AND queued_at <= ?`, a.repo, a.ref, a.typ, a.key, a.at); err != nil {
				return err
			}
		}
		return nil
	})
}

func noteArtifactFailure(ctx context.Context, st *store.Store, q []queuedArtifact, cause error) {
	st.Update(ctx, func(tx *store.Tx) error {
		for _, a := range q {
			tx.ExecContext(ctx, `UPDATE team_artifact_outbox SET attempts = attempts + 1, last_error = ?
				WHERE repo = ? AND ref = ? AND type = ? AND key = ?`, cause.Error(), a.repo, a.ref, a.typ, a.key)
		}
		return nil
	})
}

// Fetched is an artifact a cold get took from the team store.
type Fetched struct {
	Result *artifact.GetResult
	// From says whose the artifact taken was; nil when none matched this
	// work tree.
	From *Origin
	// Ignored counts versions left out for want of a valid signature
	// (team.require_signed) or because they do not say what their id says.
	Ignored int
}

// Origin is who published an artifact taken from the team store.
type Origin struct {
	ID        string    `json:"id"`
	Author    string    `json:"author"`
	Machine   string    `json:"machine"`
	CI        bool      `json:"ci"`
	CreatedAt time.Time `json:"created_at"`
	Signed    bool      `json:"signed"`
}

// NoteUnreachable remembers that the team store could not be reached, so
// that commands leave it alone for Backoff.
func NoteUnreachable(ctx context.Context, st *store.Store, err error) {
	if !team.Unreachable(err) {
		return // the store answered: an error of its own is no reason to wait
	}
	st.Update(ctx, func(tx *store.Tx) error { return tx.SetMeta(failedKey, strconv.FormatInt(tx.Now.UnixNano(), 10)) })
}

// FetchArtifact asks the team store for an artifact a local get found
// cold. A version is taken only when this work tree holds every input's
// bytes now (for a type that depends on the path set, its tree and set of
// files too): it is imported into the local store with artifact.Import,
// which checks that against its own stamps: the hit rests on this
// machine's evidence, and the next get is a local one. A teammate's "hit"
// is never evidence. When versions exist but none holds here, the newest is
// answered stale, with why and its content (to seed a regeneration), and
// nothing is imported.
func FetchArtifact(ctx context.Context, arts *artifact.Service, s Settings, req artifact.GetRequest) (*Fetched, error) {
	// HEAD is read beside the team store's round trips: the import files
	// the artifact under it, and some types compare its commit or tree.
	here := sync.OnceValues(func() (artifact.Place, error) { return arts.Here(ctx) })
	go here() // starts now; a call waits for its result
	defer here()
	repo, commit, tree, err := where(ctx, arts, req, here)
	if err != nil || strings.HasPrefix(repo, "path:") {
		return &Fetched{}, err
	}
	ts, err := team.Open(ctx, s.URL)
	if err != nil {
		return &Fetched{}, err
	}
	defer ts.Close()
	found, err := ts.FindArtifacts(ctx, repo, req.Type, arts.Key(req.Type, req.Key))
	if err != nil {
		return &Fetched{}, err
	}
	out := &Fetched{}
	var trusted []team.Artifact
	for _, a := range found {
		if s.RequireSigned && !(s.VerifyKey != nil && a.Signed(s.VerifyKey)) {
			out.Ignored++
			continue
		}
		trusted = append(trusted, a)
	}
	if len(trusted) == 0 {
		return out, nil
	}
	mine, err := arts.Hashes(ctx, inputPaths(trusted))
	if err != nil {
		return out, err
	}
	why := make([][]artifact.Reason, len(trusted))
	for i, a := range trusted {
		why[i] = mismatch(a, req, commit, tree, mine)
		if len(why[i]) > 0 {
			continue
		}
		ok, err := ts.Contents(ctx, &a)
		if err != nil {
			return out, err
		}
		if !ok {
			out.Ignored++ // not what its hashes say: never served
			continue
		}
		at, err := here()
		if err != nil {
			return out, err
		}
		res, err := takeArtifact(ctx, arts, a, req, at)
		if err != nil || res != nil {
			out.Result, out.From = res, origin(a, s)
			return out, err
		}
		why[i] = []artifact.Reason{{Dimension: artifact.DimPathSet, Detail: "the team's version was made from another set of files"}}
	}
	return out, staleFromTeam(ctx, ts, trusted, why, s, out)
}

// where is the repository, and the commit and tree when the type or mode
// compares them (one git process); else only the repository, which the
// store keeps.
func where(ctx context.Context, arts *artifact.Service, req artifact.GetRequest, here func() (artifact.Place, error)) (
	repo, commit, tree string, err error) {
	spec := artifact.SpecOf(req.Type)
	if spec.PathSet || spec.CommitPrimary || req.Mode == artifact.Strict {
		at, err := here()
		return at.Repo, at.Commit, at.Tree, err
	}
	repo, err = arts.RepoID(ctx)
	return repo, "", "", err
}

// takeArtifact imports a; nil when the import found this work tree does
// not hold what a was derived from. The import's own stamps are the
// evidence of the hit, and every other dimension was compared before
// (mismatch), so the answer is the hit a local get would give now.
func takeArtifact(ctx context.Context, arts *artifact.Service, a team.Artifact, req artifact.GetRequest, at artifact.Place) (*artifact.GetResult, error) {
	put, err := importArtifact(ctx, arts, a, at)
	if errors.Is(err, artifact.ErrOtherBytes) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	res := &artifact.GetResult{Outcome: artifact.Hit, Reasons: []artifact.Reason{}, Slices: []artifact.SliceResult{},
		Mode: cmp.Or(req.Mode, artifact.Default), Ref: put.Ref, Commit: put.Commit}
	if len(a.Slices) == 1 && a.Slices[0].Name == "" {
		res.Content = a.Slices[0].Content
		return res, nil
	}
	for _, sl := range a.Slices {
		res.Slices = append(res.Slices, artifact.SliceResult{Name: sl.Name, Fresh: true, Content: sl.Content})
	}
	return res, nil
}

// staleFromTeam answers with the newest version that says what its hashes
// say: stale, for the reasons found, with its content. Nothing is
// imported; it is no evidence of anything here.
func staleFromTeam(ctx context.Context, ts *team.Store, trusted []team.Artifact, why [][]artifact.Reason, s Settings, out *Fetched) error {
	for i, a := range trusted {
		if len(why[i]) == 0 {
			continue // not intact
		}
		ok, err := ts.Contents(ctx, &a)
		if err != nil {
			return err
		}
		if !ok {
			out.Ignored++
			continue
		}
		res := &artifact.GetResult{Outcome: artifact.Stale, Reasons: why[i], Slices: []artifact.SliceResult{}, Mode: artifact.Default,
			Commit: a.Commit}
		if len(a.Slices) == 1 && a.Slices[0].Name == "" {
			res.Content = a.Slices[0].Content
		} else {
			for _, sl := range a.Slices {
				res.Slices = append(res.Slices, artifact.SliceResult{Name: sl.Name, Content: sl.Content, Reasons: []artifact.Reason{}})
			}
		}
		out.Result, out.From = res, origin(a, s)
		return nil
	}
	return nil
}

func origin(a team.Artifact, s Settings) *Origin {
	return &Origin{ID: a.ID, Author: a.Author, Machine: a.Machine, CI: a.CI, CreatedAt: a.CreatedAt,
		Signed: s.VerifyKey != nil && a.Signed(s.VerifyKey)}
}

// maxNamed bounds the files a reason names.
const maxNamed = 5

// mismatch says why a cannot answer req here; none when it can be taken
// (the path set is then checked by the import): the digests req vouches
// for, the TTL, the commit where the type or mode asks for it, the tree
// where the type depends on the path set, and every input's bytes.
func mismatch(a team.Artifact, req artifact.GetRequest, commit, tree string, mine map[string]string) []artifact.Reason {
	spec := artifact.SpecOf(req.Type)
	var out []artifact.Reason
	add := func(dim, detail string) { out = append(out, artifact.Reason{Dimension: dim, Detail: detail}) }
	if len(a.Slices) == 0 {
		add(artifact.DimFile, "the team's version has no slices")
		return out
	}
	if dim, ok := sameDigests(a, req.Digests); !ok {
		add(dim, "the team's version vouches for another")
	}
	if expired(a) {
		add(artifact.DimTTL, "the team's version is past its TTL")
	}
	if (spec.CommitPrimary || req.Mode == artifact.Strict) && a.Commit != commit {
		add(artifact.DimCommit, "the team's version was made at "+short(a.Commit))
	}
	if (spec.PathSet || req.Mode == artifact.Strict) && a.Tree != tree {
		add(artifact.DimTree, "the team's version was made from tree "+short(a.Tree))
	}
	var differ []string
	for _, sl := range a.Slices {
		for _, in := range sl.Inputs {
			if in.SHA256 == "" || mine[in.Path] != in.SHA256 {
				differ = append(differ, in.Path)
			}
		}
	}
	if len(differ) > 0 {
		detail := strings.Join(differ[:min(len(differ), maxNamed)], ", ")
		if len(differ) > maxNamed {
			detail += fmt.Sprintf(" and %d more", len(differ)-maxNamed)
		}
		add(artifact.DimFile, "this work tree's bytes differ from the team's version's: "+detail)
	}
	return out
}

func short(sha string) string { return sha[:min(len(sha), 12)] }

// sameDigests: every slice vouches for the same versions and digests, and
// for the ones req gives, the same as req; else the dimension that differs.
func sameDigests(a team.Artifact, d artifact.Digests) (string, bool) {
	first := a.Slices[0]
	for _, sl := range a.Slices {
		if sl.AgentVersion != first.AgentVersion || sl.ConfigDigest != first.ConfigDigest ||
			sl.PolicyDigest != first.PolicyDigest || sl.EntitlementDigest != first.EntitlementDigest || sl.PathSet != first.PathSet {
			return artifact.DimConfig, false
		}
	}
	for _, c := range []struct{ dim, want, have string }{
		{artifact.DimAgent, d.AgentVersion, first.AgentVersion},
		{artifact.DimConfig, d.ConfigDigest, first.ConfigDigest},
		{artifact.DimPolicy, d.PolicyDigest, first.PolicyDigest},
		{artifact.DimEntitlement, d.EntitlementDigest, first.EntitlementDigest},
	} {
		if c.want != "" && c.want != c.have {
			return c.dim, false
		}
	}
	return "", true
}

// expired: a slice's TTL has run out since the artifact was made.
func expired(a team.Artifact) bool {
	for _, sl := range a.Slices {
		if sl.TTLSeconds > 0 && nowFunc().After(a.CreatedAt.Add(time.Duration(sl.TTLSeconds)*time.Second)) {
			return true
		}
	}
	return false
}

func inputPaths(as []team.Artifact) []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range as {
		for _, sl := range a.Slices {
			for _, in := range sl.Inputs {
				if !seen[in.Path] {
					seen[in.Path] = true
					out = append(out, in.Path)
				}
			}
		}
	}
	return out
}

// importArtifact stores a's slices locally, with its inputs as deps and
// the rest of its TTL, if artifact.Import finds this work tree holds them.
func importArtifact(ctx context.Context, arts *artifact.Service, a team.Artifact, at artifact.Place) (*artifact.PutSlicesResult, error) {
	first := a.Slices[0]
	by := team.Who(a.Author, a.Machine, a.CI)
	req := artifact.PutRequest{Type: a.Type, Key: a.Key, Producer: "team: " + by, TTL: -1,
		Digests: artifact.Digests{AgentVersion: first.AgentVersion, ConfigDigest: first.ConfigDigest,
			PolicyDigest: first.PolicyDigest, EntitlementDigest: first.EntitlementDigest}}
	want := artifact.Want{Files: map[string]string{}, Tree: a.Tree, PathSet: first.PathSet, At: &at}
	var in []artifact.SliceInput
	for _, sl := range a.Slices {
		if sl.TTLSeconds > 0 {
			left := a.CreatedAt.Add(time.Duration(sl.TTLSeconds) * time.Second).Sub(nowFunc())
			if req.TTL < 0 || left < req.TTL {
				req.TTL = max(left, time.Second)
			}
		}
		x := artifact.SliceInput{Name: sl.Name, Content: sl.Content}
		for _, f := range sl.Inputs {
			x.Deps = append(x.Deps, f.Path)
			if w, ok := want.Files[f.Path]; ok && w != f.SHA256 {
				return nil, fmt.Errorf("%s: two slices name other bytes: %w", f.Path, artifact.ErrOtherBytes)
			}
			want.Files[f.Path] = f.SHA256
		}
		in = append(in, x)
	}
	return arts.Import(ctx, req, in, want)
}

// QueueArtifact queues an artifact just put, when a team store is
// configured and team.publish is not none, and starts a publisher (self
// is this binary) in the background. Whatever fails costs the put nothing:
// the next one tries again.
func QueueArtifact(ctx context.Context, st *store.Store, self, root string, env []string, repo, ref, typ, key string) {
	s, err := Load(ctx, st)
	if err != nil || s.URL == "" {
		return
	}
	if queued, err := EnqueueArtifact(ctx, st, s, repo, ref, typ, key); err == nil && queued {
		StartPublisher(self, root, st.Path(), env, s)
	}
}

// ColdGet asks the team store for an artifact a local get found cold,
// when one is configured and was not found unreachable within Backoff;
// nil when none is, or none was asked. An unreachable store is remembered
// and returned as the error (the get stays what it was).
func ColdGet(ctx context.Context, arts *artifact.Service, req artifact.GetRequest) (*Fetched, error) {
	s, err := Load(ctx, arts.Store)
	if err != nil || s.URL == "" || nowFunc().Sub(s.FailedAt) < Backoff {
		return nil, nil
	}
	got, err := FetchArtifact(ctx, arts, s, req)
	if err != nil {
		NoteUnreachable(ctx, arts.Store, err)
		return nil, err
	}
	return got, nil
}
