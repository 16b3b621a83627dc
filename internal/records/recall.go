package records

import (
	"context"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/rank"
	"github.com/freshctx/freshctx/internal/store"
)

// RecallRequest is one search.
type RecallRequest struct {
	Query string
	// Files restricts results to records referencing one of these files or
	// a file under one of these folders (as the user typed them).
	Files []string
	Limit int // default 10
}

// Hit is one result of recall, best first.
type Hit struct {
	ID        int64                  `json:"id"`
	Score     float64                `json:"score"`
	Freshness *freshness.Result      `json:"freshness"`
	Files     []freshness.FileResult `json:"files"`
	Command   string                 `json:"command"`
	Label     string                 `json:"label"`
	ExitCode  *int                   `json:"exit_code"`
	CreatedAt time.Time              `json:"created_at"`
	Snippet   string                 `json:"snippet"`
}

// listDepth is how many candidates the full-text search and each exact
// list contribute.
const listDepth = 200

// Recall finds the records that best match the query. Candidates come from
// the full-text index (the query's rarer words and their parts) and from
// exact lists of the paths and names it holds; each is scored by relevance
// (see rank.go). Records of near-equal relevance are ordered: not
// superseded first, then by freshness, then newest first. Freshness of every record that could still reach the
// top is checked against one snapshot.
func (s *Service) Recall(ctx context.Context, req RecallRequest) ([]Hit, error) {
	if req.Limit <= 0 {
		req.Limit = 10
	}
	filter, err := s.fileFilter(req.Files)
	if err != nil {
		return nil, err
	}
	q := rank.Parse(req.Query)
	var ranked []scored
	search := func(tx *store.Tx) error {
		var err error
		ranked, err = rankRecords(ctx, tx, q, filter, req.Limit)
		return err
	}
	if q.Empty {
		err = s.Store.View(ctx, search) // the newest records: no text to search
	} else {
		err = s.searchWith(ctx, search)
	}
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	ids := make([]int64, len(ranked))
	rel := map[int64]float64{}
	for i, r := range ranked {
		ids[i] = r.id
		rel[r.id] = r.rel
	}
	recs, err := s.loadMany(ctx, ids)
	if err != nil {
		return nil, err
	}
	if err := s.CheckAll(ctx, recs); err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(recs))
	for _, r := range recs {
		hits = append(hits, Hit{
			ID: r.ID, Score: round(rel[r.ID] * r.Freshness.Label.RankFactor()), Freshness: r.Freshness,
			Files: r.Freshness.Files, Command: r.Command, Label: r.Label, ExitCode: r.ExitCode,
			CreatedAt: r.CreatedAt,
		})
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if ba, bb := rank.Band(rel[a.ID]), rank.Band(rel[b.ID]); ba != bb {
			return bb - ba
		}
		// Among equals, the latest run of a command before the runs it
		// superseded, then the fresher, then the newer.
		if sa, sb := a.Freshness.SupersededBy != 0, b.Freshness.SupersededBy != 0; sa != sb {
			if sb {
				return -1
			}
			return 1
		}
		if fa, fb := a.Freshness.Label.RankFactor(), b.Freshness.Label.RankFactor(); fa != fb {
			if fa > fb {
				return -1
			}
			return 1
		}
		return int(b.ID - a.ID)
	})
	if len(hits) > req.Limit {
		hits = hits[:req.Limit]
	}
	byID := map[int64]*Record{}
	for _, r := range recs {
		byID[r.ID] = r
	}
	for i := range hits {
		hits[i].Snippet = snippetFor(byID[hits[i].ID], "", q)
	}
	return hits, nil
}

// scored is a candidate's relevance.
type scored struct {
	id  int64
	rel float64
}

// rank gathers and scores the candidates and keeps those that can still
// reach the top limit: freshness reorders only within a relevance band.
func rankRecords(ctx context.Context, tx *store.Tx, q rank.Query, filter []string, limit int) ([]scored, error) {
	if q.Empty {
		where, args := filterSQL("id", filter)
		ids, err := queryIDs(ctx, tx, "SELECT id FROM records WHERE 1"+where+" ORDER BY id DESC LIMIT ?", append(args, limit)...)
		out := make([]scored, len(ids))
		for i, id := range ids {
			out[i] = scored{id: id}
		}
		return out, err
	}
	ws := rank.Words(q)
	idf, err := docShare(ctx, tx, rank.Terms(ws))
	if err != nil {
		return nil, err
	}
	for i := range ws {
		ws[i].IDF = idf[ws[i].Text]
		ws[i].PartIDF = make([]float64, len(ws[i].Parts))
		for j, p := range ws[i].Parts {
			ws[i].PartIDF[j] = idf[p]
		}
	}
	ids, err := gatherCandidates(ctx, tx, q, ws, idf, filter)
	if err != nil {
		return nil, err
	}
	cands, err := loadCandidates(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]scored, 0, len(cands))
	for _, id := range ids {
		if c := cands[id]; c != nil {
			out = append(out, scored{id: id, rel: rank.Relevance(c, ws, q)})
		}
	}
	slices.SortStableFunc(out, func(a, b scored) int {
		if ba, bb := rank.Band(a.rel), rank.Band(b.rel); ba != bb {
			return bb - ba
		}
		return int(b.id - a.id)
	})
	if len(out) > limit {
		n := limit
		for n < len(out) && rank.Band(out[n].rel) == rank.Band(out[limit-1].rel) {
			n++
		}
		out = out[:n]
	}
	return out, nil
}

func round(f float64) float64 { return math.Round(f*1e6) / 1e6 }

// ftsExpr quotes every term, so no user text is FTS5 syntax.
func ftsExpr(q rank.Query) string {
	parts := make([]string, len(q.Terms))
	for i, t := range q.Terms {
		parts[i] = quoteTerm(t)
	}
	return strings.Join(parts, " OR ")
}

// fileFilter turns --file arguments into root-relative paths.
func (s *Service) fileFilter(files []string) ([]string, error) {
	var out []string
	for _, f := range files {
		rel, err := s.WS.Rel(f, s.Cwd)
		if err != nil {
			return nil, fmt.Errorf("--file: %w", err)
		}
		out = append(out, rel)
	}
	return out, nil
}

// filterSQL restricts a record id column to records referencing a filter
// path or a file under it.
func filterSQL(col string, filter []string) (string, []any) {
	if len(filter) == 0 {
		return "", nil
	}
	var conds []string
	var args []any
	for _, f := range filter {
		if f == "." {
			return "", nil // the whole workspace
		}
		conds = append(conds, "(path = ? OR substr(path, 1, ?) = ?)")
		args = append(args, f, len(f)+1, f+"/")
	}
	return fmt.Sprintf(" AND %s IN (SELECT record_id FROM record_files WHERE %s)", col, strings.Join(conds, " OR ")), args
}

// gatherCandidates finds the records worth scoring: the full-text search's
// best for the query's rarer words and parts, and the records naming its
// paths (or their base names) and its test names, codes and symbols.
func gatherCandidates(ctx context.Context, tx *store.Tx, q rank.Query, ws []rank.Word, idf map[string]float64, filter []string) ([]int64, error) {
	var ids []int64
	seen := map[int64]bool{}
	add := func(list []int64, err error) error {
		for _, id := range list {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
		return err
	}
	var rare []string
	for _, t := range rank.Terms(ws) {
		if idf[t] >= rank.RareIDF {
			rare = append(rare, quoteTerm(t))
		}
	}
	where, args := filterSQL("rowid", filter)
	if len(rare) > 0 {
		err := add(queryIDs(ctx, tx, `SELECT rowid FROM records_fts WHERE records_fts MATCH ?`+where+`
			ORDER BY bm25(records_fts, 1.0, 2.0, 1.0, 3.0) LIMIT `+fmt.Sprint(listDepth), append([]any{strings.Join(rare, " OR ")}, args...)...))
		if err != nil {
			return nil, err
		}
	}
	// The paths the query names, and the query itself, as phrases: a file
	// name made of common words (rates.py) and a message quoted whole.
	var phrases []string
	for _, p := range q.Paths {
		phrases = append(phrases, phraseOf(p))
	}
	if len(q.Terms) > 1 {
		phrases = append(phrases, phraseOf(strings.Join(q.Terms, " ")))
	}
	for _, ph := range phrases {
		if ph == "" {
			continue
		}
		err := add(queryIDs(ctx, tx, `SELECT rowid FROM records_fts WHERE records_fts MATCH ?`+where+`
			ORDER BY bm25(records_fts, 1.0, 2.0, 1.0, 3.0) LIMIT `+fmt.Sprint(listDepth), append([]any{ph}, args...)...))
		if err != nil {
			return nil, err
		}
	}
	if expr := wordsExpr(ws); len(ids) < listDepth && expr != "" {
		// Common words, or a compound word only its common parts find:
		// the newest records that hold a word (or all its parts), read
		// backwards from the index, cost little to add and scoring sorts
		// them out.
		err := add(queryIDs(ctx, tx, `SELECT rowid FROM records_fts WHERE records_fts MATCH ?`+where+`
			ORDER BY rowid DESC LIMIT `+fmt.Sprint(listDepth), append([]any{expr}, args...)...))
		if err != nil {
			return nil, err
		}
	}
	fwhere, fargs := filterSQL("record_id", filter)
	for _, p := range q.Paths {
		err := add(queryIDs(ctx, tx, `SELECT DISTINCT record_id FROM record_files WHERE (path = ? OR base = ?)`+fwhere+`
			ORDER BY record_id DESC LIMIT `+fmt.Sprint(listDepth), append([]any{p, path.Base(p)}, fargs...)...))
		if err != nil {
			return nil, err
		}
	}
	for _, n := range q.Names {
		err := add(queryIDs(ctx, tx, `SELECT DISTINCT record_id FROM record_facts
			WHERE kind IN ('test', 'code', 'symbol') AND value = ?`+fwhere+` ORDER BY record_id DESC LIMIT `+fmt.Sprint(listDepth),
			append([]any{n}, fargs...)...))
		if err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// phraseOf is an FTS5 phrase of a text's words, in order ("" if none).
func phraseOf(text string) string {
	words := rank.IndexWords(text)
	if len(words) == 0 || len(words) > rank.MaxTerms {
		return ""
	}
	return `"` + strings.ReplaceAll(strings.Join(words, " "), `"`, `""`) + `"`
}

// wordsExpr matches records holding any query word, or all parts of one.
func wordsExpr(ws []rank.Word) string {
	var alts []string
	for _, w := range ws {
		alt := quoteTerm(w.Text)
		if len(w.Parts) > 0 {
			parts := make([]string, len(w.Parts))
			for i, p := range w.Parts {
				parts[i] = quoteTerm(p)
			}
			alt = "(" + alt + " OR (" + strings.Join(parts, " AND ") + "))"
		}
		alts = append(alts, alt)
	}
	return strings.Join(alts, " OR ")
}

// sampleSize is how many of the newest records estimate a word's share.
const sampleSize = 1000

func queryIDs(ctx context.Context, tx *store.Tx, q string, args ...any) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// loadMany loads records with their files, in one transaction.
func (s *Service) loadMany(ctx context.Context, ids []int64) ([]*Record, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	var recs []*Record
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		recs, err = queryRecords(ctx, tx, "WHERE id IN (?"+strings.Repeat(",?", len(ids)-1)+")", args...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("load records: %w", err)
	}
	return recs, nil
}

// snippetFor prefers the full-text snippet, else the first digest line with
// a query term, else the digest's first line.
func snippetFor(r *Record, fts string, q rank.Query) string {
	if fts = strings.TrimSpace(fts); fts != "" {
		return fts
	}
	lines := strings.Split(strings.TrimSpace(r.Digest), "\n")
	best, bestN := lines[0], 0
	for _, l := range lines {
		low := strings.ToLower(l)
		n := 0
		for _, t := range q.Terms {
			if strings.Contains(low, strings.ToLower(t)) {
				n++
			}
		}
		if n > bestN {
			best, bestN = l, n
		}
	}
	return truncateLine(best)
}

func truncateLine(s string) string {
	if r := []rune(s); len(r) > 200 {
		return string(r[:199]) + "…"
	}
	return s
}
