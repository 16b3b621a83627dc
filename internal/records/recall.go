package records

import (
	"context"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/freshctx/freshctx/internal/freshness"
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
	Freshness freshness.Label        `json:"freshness"`
	Files     []freshness.FileResult `json:"files"`
	Command   string                 `json:"command"`
	Label     string                 `json:"label"`
	ExitCode  *int                   `json:"exit_code"`
	CreatedAt time.Time              `json:"created_at"`
	Snippet   string                 `json:"snippet"`
}

const (
	rrfK = 60
	// listDepth is how many candidates each ranked list contributes.
	listDepth = 200
	maxTerms  = 32
)

// Recall finds the records that best match the query: a BM25 list over
// command, label, digest and facts, exact lists for paths, test names and
// symbols named in the query, and a recency list, fused by reciprocal rank
// (k=60) and multiplied by each record's freshness factor. Freshness of all
// candidates that could still reach the top is checked against one snapshot.
func (s *Service) Recall(ctx context.Context, req RecallRequest) ([]Hit, error) {
	if req.Limit <= 0 {
		req.Limit = 10
	}
	filter, err := s.fileFilter(req.Files)
	if err != nil {
		return nil, err
	}
	q := parseQuery(req.Query)
	var lists [][]int64
	err = s.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		lists, err = gatherLists(ctx, tx, q, filter, req.Limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	scores := fuse(lists)
	ids := topCandidates(scores, req.Limit)
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
			ID: r.ID, Score: round(scores[r.ID] * r.Freshness.Label.RankFactor()), Freshness: r.Freshness.Label,
			Files: r.Freshness.Files, Command: r.Command, Label: r.Label, ExitCode: r.ExitCode,
			CreatedAt: r.CreatedAt,
		})
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
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
		hits[i].Snippet = s.snippet(ctx, byID[hits[i].ID], q)
	}
	return hits, nil
}

// snippet is the full-text snippet of a hit, made only for the results
// shown; else the first digest line with a query term, else the first line.
func (s *Service) snippet(ctx context.Context, r *Record, q query) string {
	if len(q.terms) > 0 {
		var snip string
		err := s.Store.DB().QueryRowContext(ctx, `SELECT snippet(records_fts, 2, '', '', '…', 16)
			FROM records_fts WHERE records_fts MATCH ? AND rowid = ?`, q.ftsExpr(), r.ID).Scan(&snip)
		if err == nil && strings.TrimSpace(snip) != "" {
			return strings.TrimSpace(snip)
		}
	}
	return snippetFor(r, "", q)
}

func round(f float64) float64 { return math.Round(f*1e6) / 1e6 }

// query is the user's text split the ways the lists need it.
type query struct {
	terms   []string // for FTS5, each quoted
	paths   []string // path-like words
	names   []string // words that may be test names, symbols or codes
	isEmpty bool
}

var identRe = regexp.MustCompile(`^[A-Za-z_][\w$]*(?:(?:::|\.|/)[\w$]+)*$`)

func parseQuery(text string) query {
	var q query
	seen := map[string]bool{}
	for _, t := range strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		lt := strings.ToLower(t)
		if !seen[lt] && len(q.terms) < maxTerms {
			seen[lt] = true
			q.terms = append(q.terms, t)
		}
	}
	for _, w := range strings.Fields(text) {
		w = strings.Trim(w, "\"'`,;()[]{}<>")
		if w == "" || len(w) > 300 {
			continue
		}
		if p, ok := pathWord(w); ok {
			q.paths = append(q.paths, p)
		}
		if identRe.MatchString(w) && len(w) >= 3 {
			q.names = append(q.names, w)
		}
	}
	q.isEmpty = len(q.terms) == 0 && len(q.paths) == 0
	return q
}

// pathWord recognises a path in the query, without a trailing :line[:col].
func pathWord(w string) (string, bool) {
	w = strings.TrimPrefix(w, "./")
	for i := 0; i < 2; i++ {
		if j := strings.LastIndexByte(w, ':'); j > 0 && strings.Trim(w[j+1:], "0123456789") == "" {
			w = w[:j]
		}
	}
	if strings.Contains(w, "://") || w == "" {
		return "", false
	}
	base := path.Base(w)
	if strings.Contains(w, "/") || (strings.IndexByte(base[1:], '.') >= 0 && !identRe.MatchString(w)) ||
		(strings.Count(base, ".") == 1 && len(path.Ext(base)) >= 2 && len(path.Ext(base)) <= 6 && !strings.ContainsAny(base, "$")) {
		return w, true
	}
	return "", false
}

// ftsExpr quotes every term, so no user text is FTS5 syntax.
func (q query) ftsExpr() string {
	parts := make([]string, len(q.terms))
	for i, t := range q.terms {
		parts[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
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

// gatherLists runs the ranked lists: BM25, paths, names, then recency over
// the union (or, for an empty query, the newest records).
func gatherLists(ctx context.Context, tx *store.Tx, q query, filter []string, limit int) ([][]int64, error) {
	var lists [][]int64
	add := func(ids []int64, err error) error {
		if err == nil && len(ids) > 0 {
			lists = append(lists, ids)
		}
		return err
	}
	if q.isEmpty {
		where, args := filterSQL("id", filter)
		return lists, add(queryIDs(ctx, tx, "SELECT id FROM records WHERE 1"+where+" ORDER BY id DESC LIMIT ?", append(args, limit)...))
	}
	if len(q.terms) > 0 {
		if err := add(bm25List(ctx, tx, q, filter)); err != nil {
			return nil, err
		}
	}
	where, fargs := filterSQL("record_id", filter)
	for _, p := range q.paths {
		args := append([]any{p, path.Base(p)}, fargs...)
		if err := add(queryIDs(ctx, tx, `SELECT DISTINCT record_id FROM record_files
			WHERE (path = ? OR base = ?)`+where+` ORDER BY record_id DESC LIMIT `+fmt.Sprint(listDepth), args...)); err != nil {
			return nil, err
		}
	}
	for _, n := range q.names {
		args := append([]any{n}, fargs...)
		if err := add(queryIDs(ctx, tx, `SELECT DISTINCT record_id FROM record_facts
			WHERE kind IN ('test', 'code', 'symbol') AND value = ?`+where+` ORDER BY record_id DESC LIMIT `+fmt.Sprint(listDepth), args...)); err != nil {
			return nil, err
		}
	}
	return append(lists, recency(lists)), nil
}

// commonShare: a term in more than this share of records is left out of
// the full-text search, unless every term is that common.
const commonShare = 0.05

func bm25List(ctx context.Context, tx *store.Tx, q query, filter []string) ([]int64, error) {
	expr, onlyCommon, err := selectTerms(ctx, tx, q)
	if err != nil {
		return nil, err
	}
	where, args := filterSQL("rowid", filter)
	order := "bm25(records_fts, 1.0, 2.0, 1.0, 3.0)"
	if onlyCommon {
		// BM25 cannot tell records apart by words they all share: the
		// newest that contain them, read backwards from the index, will do.
		order = "rowid DESC"
	}
	return queryIDs(ctx, tx, `SELECT rowid FROM records_fts WHERE records_fts MATCH ?`+where+`
		ORDER BY `+order+` LIMIT `+fmt.Sprint(listDepth), append([]any{expr}, args...)...)
}

// sampleSize is how many of the newest records estimate a term's share.
const sampleSize = 1000

// selectTerms drops terms most records contain, judged by their share of the
// newest records (reading a common term's whole document list to count it
// would cost as much as the search); if all are common it keeps them and
// says so.
func selectTerms(ctx context.Context, tx *store.Tx, q query) (string, bool, error) {
	var newest, oldest int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0), coalesce(min(id), 0) FROM records`).Scan(&newest, &oldest); err != nil {
		return "", false, err
	}
	from := max(newest-sampleSize, oldest-1)
	sample := newest - from
	keep := query{}
	for _, t := range q.terms {
		one := query{terms: []string{t}}
		var docs int64
		// Counting stops as soon as the term is known to be common.
		limit := int64(commonShare*float64(sample)) + 1
		err := tx.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM records_fts
			WHERE records_fts MATCH ? AND rowid > ? LIMIT ?)`, one.ftsExpr(), from, limit).Scan(&docs)
		if err != nil {
			return "", false, fmt.Errorf("term frequency: %w", err)
		}
		if sample < sampleSize || float64(docs) <= commonShare*float64(sample) {
			keep.terms = append(keep.terms, t)
		}
	}
	if len(keep.terms) == 0 {
		return q.ftsExpr(), true, nil
	}
	return keep.ftsExpr(), false, nil
}

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

// recency ranks every candidate found by another list, newest first (ids
// grow with time).
func recency(lists [][]int64) []int64 {
	var all []int64
	seen := map[int64]bool{}
	for _, l := range lists {
		for _, id := range l {
			if !seen[id] {
				seen[id] = true
				all = append(all, id)
			}
		}
	}
	slices.SortFunc(all, func(a, b int64) int { return int(b - a) })
	return all
}

// fuse is reciprocal rank fusion: Σ 1/(k + rank), rank from 1.
func fuse(lists [][]int64) map[int64]float64 {
	scores := map[int64]float64{}
	for _, l := range lists {
		for i, id := range l {
			scores[id] += 1 / float64(rrfK+i+1)
		}
	}
	return scores
}

// topCandidates keeps the records that can still reach the top limit once
// the freshness factor (between 0.88 and 1.06) is applied.
func topCandidates(scores map[int64]float64, limit int) []int64 {
	ids := make([]int64, 0, len(scores))
	for id := range scores {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b int64) int {
		if scores[a] != scores[b] {
			if scores[a] > scores[b] {
				return -1
			}
			return 1
		}
		return int(b - a)
	})
	if len(ids) <= limit {
		return ids
	}
	worst, best := freshness.StaleDeleted.RankFactor(), freshness.Fresh.RankFactor()
	cut := scores[ids[limit-1]] * worst / best
	n := limit
	for n < len(ids) && scores[ids[n]] >= cut {
		n++
	}
	return ids[:n]
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
func snippetFor(r *Record, fts string, q query) string {
	if fts = strings.TrimSpace(fts); fts != "" {
		return fts
	}
	lines := strings.Split(strings.TrimSpace(r.Digest), "\n")
	for _, l := range lines {
		low := strings.ToLower(l)
		for _, t := range q.terms {
			if strings.Contains(low, strings.ToLower(t)) {
				return truncateLine(l)
			}
		}
	}
	return truncateLine(lines[0])
}

func truncateLine(s string) string {
	if r := []rune(s); len(r) > 200 {
		return string(r[:199]) + "…"
	}
	return s
}
