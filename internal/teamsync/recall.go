package teamsync

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/rank"
	"github.com/freshctx/freshctx/internal/sha"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/team"
	"github.com/freshctx/freshctx/internal/workspace"
)

// Hit is a team record found by recall, labelled against this work tree.
type Hit struct {
	team.Record
	Score     float64          `json:"score"`
	Freshness freshness.Result `json:"freshness"`
	Signed    bool             `json:"signed"`
}

// RecallResult is what recall --team found, and what it left out.
type RecallResult struct {
	Hits []Hit `json:"results"` // as local recall names them
	// Ignored counts records left out for want of a valid signature
	// (team.require_signed).
	Ignored int `json:"ignored"`
}

// Candidate search: the newest perTerm records holding each word, and the
// words weighed over the newest sampleSize records, as local recall does.
const (
	perTerm    = 200
	sampleSize = 1000
)

// Recall searches the team's records of this repository, orders them as
// local recall orders its own (package rank: relevance bands, then
// freshness, then the newest), and labels each by this work tree's bytes
// now: a file is fresh only when its SHA-256 here equals the publisher's
// (this machine's own fingerprints may stand for its bytes, through the
// stat cache); a file the publisher did not read is unknown; nothing
// another machine said about its own files is evidence.
func Recall(ctx context.Context, st *store.Store, ws *workspace.Workspace, s Settings, query string, limit int) (*RecallResult, error) {
	if limit <= 0 {
		limit = 10
	}
	ts, repo, err := openFor(ctx, ws, s.URL)
	if err != nil {
		return nil, err
	}
	defer ts.Close()
	q := rank.Parse(query)
	words, rare, found, err := candidates(ctx, ts, repo, q, limit, s.VerifyKey != nil)
	if err != nil {
		return nil, err
	}
	res := &RecallResult{}
	for _, r := range found {
		signed := s.VerifyKey != nil && r.Signed(s.VerifyKey)
		if s.RequireSigned && !signed {
			res.Ignored++
			continue
		}
		h := Hit{Record: r, Signed: signed}
		if !q.Empty {
			doc := rank.NewDoc(0, r.Command+"\n"+r.Label+"\n"+r.Summary, filePaths(r))
			if !rank.Candidate(doc, words, rare, q) {
				continue // found by a common word alone: not a candidate locally either
			}
			h.Score = rank.Relevance(doc, words, q)
		}
		res.Hits = append(res.Hits, h)
	}
	res.Hits = contenders(res.Hits, limit)
	if err := label(ctx, st, ws, res.Hits); err != nil {
		return nil, err
	}
	slices.SortStableFunc(res.Hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(rank.Band(b.Score), rank.Band(a.Score)),
			cmp.Compare(b.Freshness.Label.RankFactor(), a.Freshness.Label.RankFactor()),
			b.CreatedAt.Compare(a.CreatedAt))
	})
	if len(res.Hits) > limit {
		res.Hits = res.Hits[:limit]
	}
	return res, nil
}

// openFor connects to the team store at url while it reads the id of the
// repository ws belongs to: one waits on the server, the other on a git
// process. A work tree the team store cannot share by stops the connection
// at once, and its error is the one returned.
func openFor(ctx context.Context, ws *workspace.Workspace, url string) (*team.Store, string, error) {
	type opened struct {
		ts  *team.Store
		err error
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel() // the connection, once made, no longer heeds it
	done := make(chan opened, 1)
	go func() {
		ts, err := team.OpenSearch(cctx, url, team.Asked)
		done <- opened{ts, err}
	}()
	repo, err := repoID(ctx, ws)
	if err != nil {
		cancel()
		if o := <-done; o.err == nil {
			o.ts.Close()
		}
		return nil, "", fmt.Errorf("recall --team: %w", err)
	}
	o := <-done
	return o.ts, repo, o.err
}

// candidates are the records to rank, the query's words weighed over the
// team's newest records and the rare ones among them; with no words, the
// newest records. sums asks for the sums of their outputs, which only a
// signature check needs (a verify key is set).
func candidates(ctx context.Context, ts *team.Store, repo string, q rank.Query, limit int, sums bool) (
	words []rank.Word, rare []string, recs []team.Record, err error) {
	if q.Empty {
		recs, err := ts.Search(ctx, team.Query{RepoID: repo, Limit: limit})
		return nil, nil, recs, err
	}
	words = rank.Words(q)
	terms := rank.Terms(words)
	found, err := ts.Candidates(ctx, repo, terms, perTerm, sampleSize, sums)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, t := range terms {
		if rank.IDF(found.Sample, found.Docs[t]) >= rank.RareIDF {
			rare = append(rare, t)
		}
	}
	for i := range words {
		words[i].IDF = rank.IDF(found.Sample, found.Docs[words[i].Text])
		words[i].PartIDF = make([]float64, len(words[i].Parts))
		for j, p := range words[i].Parts {
			words[i].PartIDF[j] = rank.IDF(found.Sample, found.Docs[p])
		}
	}
	return words, rare, found.Records, nil
}

// contenders keeps the hits that can still reach the top limit once
// freshness reorders each relevance band.
func contenders(hits []Hit, limit int) []Hit {
	slices.SortStableFunc(hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(rank.Band(b.Score), rank.Band(a.Score)), b.CreatedAt.Compare(a.CreatedAt))
	})
	if len(hits) <= limit {
		return hits
	}
	n := limit
	for n < len(hits) && rank.Band(hits[n].Score) == rank.Band(hits[limit-1].Score) {
		n++
	}
	return hits[:n]
}

// label checks every hit's files against this work tree, with one
// snapshot.
func label(ctx context.Context, st *store.Store, ws *workspace.Workspace, hits []Hit) error {
	if len(hits) == 0 {
		return nil
	}
	stamps := make([]freshness.Stamp, len(hits))
	var paths []string
	for i, h := range hits {
		stamps[i] = stampOf(h.Record)
		for _, f := range stamps[i].Files {
			paths = append(paths, f.Path)
		}
	}
	snap, err := freshness.NewSnapshot(ctx, ws, paths, freshness.Options{Cache: freshness.StoreCache{S: st}})
	if err != nil {
		return err
	}
	results, err := snap.CheckMany(ctx, stamps)
	if err != nil {
		return err
	}
	for i := range hits {
		hits[i].Freshness = ownEvidence(results[i], stamps[i])
	}
	return nil
}

func filePaths(r team.Record) []string {
	out := make([]string, len(r.Files))
	for i, f := range r.Files {
		out[i] = f.Path
	}
	return out
}

// stampOf is a team record's files as a stamp with no fingerprint (this
// machine never saw them): the check must hash what is here and compare.
// A file the publisher did not hash is marked not stamped: unknown.
func stampOf(r team.Record) freshness.Stamp {
	var st freshness.Stamp
	for _, f := range r.Files {
		fs := freshness.FileStamp{Path: f.Path, Existed: f.Existed, Size: f.Size}
		if f.Existed {
			d, err := sha.Parse(f.SHA256)
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
// team.require_signed. Without a key every record is left out, and they
// are counted without reading them (reading hashes each one's output).
func Unsigned(ctx context.Context, ts *team.Store, repo string, key []byte) (int, error) {
	if key == nil {
		c, err := ts.Count(ctx, repo)
		return min(c.Records, unsignedScan), err
	}
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
