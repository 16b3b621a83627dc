package teamsync

import (
	"context"
	"fmt"
	"strings"

	"github.com/freshctx/freshctx/internal/digest"
	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/team"
	"github.com/freshctx/freshctx/internal/workspace"
)

// Hit is a team record found by recall, labelled against this work tree.
type Hit struct {
	team.Record
	Freshness freshness.Result `json:"freshness"`
	Signed    bool             `json:"signed"`
}

// RecallResult is what recall --team found, and what it left out.
type RecallResult struct {
	Hits []Hit `json:"hits"`
	// Ignored counts records left out for want of a valid signature
	// (team.require_signed).
	Ignored int `json:"ignored"`
}

// Recall searches the team's records of this repository and labels each
// by this work tree's bytes now: a file is fresh only when its SHA-256 here
// equals the publisher's (this machine's own fingerprints may stand for
// its bytes, through the stat cache); a file the publisher did not read is
// unknown; nothing another machine said about its own files is evidence.
func Recall(ctx context.Context, st *store.Store, ws *workspace.Workspace, s Settings, query string, limit int) (*RecallResult, error) {
	repo, err := repoID(ctx, ws)
	if err != nil {
		return nil, fmt.Errorf("recall --team: %w", err)
	}
	ts, err := team.OpenWith(ctx, s.URL, team.Asked)
	if err != nil {
		return nil, err
	}
	defer ts.Close()
	found, err := ts.Search(ctx, team.Query{RepoID: repo, Text: query, Limit: limit})
	if err != nil {
		return nil, err
	}
	res := &RecallResult{}
	var stamps []freshness.Stamp
	var paths []string
	for _, r := range found {
		signed := s.VerifyKey != nil && r.Signed(s.VerifyKey)
		if s.RequireSigned && !signed {
			res.Ignored++
			continue
		}
		res.Hits = append(res.Hits, Hit{Record: r, Signed: signed})
		st := stampOf(r)
		stamps = append(stamps, st)
		for _, f := range st.Files {
			paths = append(paths, f.Path)
		}
	}
	if len(stamps) == 0 {
		return res, nil
	}
	snap, err := freshness.NewSnapshot(ctx, ws, paths, freshness.Options{Cache: freshness.StoreCache{S: st}})
	if err != nil {
		return nil, err
	}
	results, err := snap.CheckMany(ctx, stamps)
	if err != nil {
		return nil, err
	}
	for i := range res.Hits {
		res.Hits[i].Freshness = ownEvidence(results[i], stamps[i])
	}
	return res, nil
}

// stampOf is a team record's files as a stamp with no fingerprint (this
// machine never saw them): the check must hash what is here and compare.
// A file the publisher did not hash is marked not stamped: unknown.
func stampOf(r team.Record) freshness.Stamp {
	var st freshness.Stamp
	for _, f := range r.Files {
		fs := freshness.FileStamp{Path: f.Path, Existed: f.Existed, Size: f.Size}
		if f.Existed {
			d, err := digest.Parse(f.SHA256)
			if err != nil || f.SHA256 == "" {
				fs.Notes = freshness.NoteNotStamped
			}
			fs.Digest = d
		}
		st.Files = append(st.Files, fs)
	}
	return st
}

// ownEvidence keeps a file fresh only on this machine's own evidence: the
// bytes here hash to the publisher's, or the file is still absent. Any
// other "fresh" (the check's mtime tier, which would read another
// machine's clock) becomes unknown.
func ownEvidence(res freshness.Result, st freshness.Stamp) freshness.Result {
	labels := make([]freshness.Label, len(res.Files))
	for i := range res.Files {
		f := &res.Files[i]
		if f.Label == freshness.Fresh && st.Files[i].Existed && !strings.HasPrefix(f.Reason, "content unchanged") {
			f.Label, f.Reason = freshness.Unknown, "no evidence of this machine's own that the bytes are the publisher's"
		}
		labels[i] = f.Label
	}
	if len(labels) > 0 {
		res.Label = freshness.Worst(labels...)
	}
	return res
}

// unsignedScan bounds how many of the newest records Unsigned checks.
const unsignedScan = 10000

// Unsigned counts, of the newest records of a repository, those without a
// valid signature by key's private half: what recall leaves out under
// team.require_signed.
func Unsigned(ctx context.Context, ts *team.Store, repo string, key []byte) (int, error) {
	recs, err := ts.Search(ctx, team.Query{RepoID: repo, Limit: unsignedScan})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range recs {
		if key == nil || !r.Signed(key) {
			n++
		}
	}
	return n, nil
}

// UnsignedArtifacts counts, of the newest artifacts of a repository, those
// a get leaves out: without a valid signature by key's private half
// (when signing is required) or not saying what their id says.
func UnsignedArtifacts(ctx context.Context, ts *team.Store, repo string, key []byte, required bool) (int, error) {
	as, err := ts.ListArtifacts(ctx, repo, unsignedScan)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, a := range as {
		if required && (key == nil || !a.Signed(key)) || !a.Sealed() {
			n++
		}
	}
	return n, nil
}
