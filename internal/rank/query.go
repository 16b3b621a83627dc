package rank

import (
	"path"
	"regexp"
	"strings"

	"github.com/freshctx/freshctx/internal/rx"
)

// Query is the user's text split the ways the lists need it.
type Query struct {
	Terms []string // the words, as typed (a full-text search quotes each)
	Paths []string // path-like words
	Names []string // words that may be test names, symbols or codes
	// Phrase matches the query's words in its order, whatever is between
	// them but words (case-insensitive); nil for one word.
	Phrase *regexp.Regexp
	Empty  bool
}

// MaxTerms bounds the words of a query.
const MaxTerms = 32

var identRe = rx.MustCompile(`^[A-Za-z_][\w$]*(?:(?:::|\.|/)[\w$]+)*$`)

// Parse splits a query typed by a user or an agent.
func Parse(text string) Query {
	var q Query
	seen := map[string]bool{}
	for _, t := range IndexWords(text) {
		lt := strings.ToLower(t)
		if !seen[lt] && len(q.Terms) < MaxTerms {
			seen[lt] = true
			q.Terms = append(q.Terms, t)
		}
	}
	for _, w := range strings.Fields(text) {
		w = strings.Trim(w, "\"'`,;()[]{}<>")
		if w == "" || len(w) > 300 {
			continue
		}
		if p, ok := pathWord(w); ok {
			q.Paths = append(q.Paths, p)
		}
		if identRe.MatchString(w) && len(w) >= 3 {
			q.Names = append(q.Names, w)
		}
	}
	q.Empty = len(q.Terms) == 0 && len(q.Paths) == 0
	if len(q.Terms) > 1 {
		quoted := make([]string, len(q.Terms))
		for i, t := range q.Terms {
			quoted[i] = regexp.QuoteMeta(t)
		}
		q.Phrase = regexp.MustCompile(`(?i)(^|[^\w])` + strings.Join(quoted, `[^\w]+`) + `($|[^\w])`)
	}
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
