package records

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/freshctx/freshctx/internal/store"
)

// Relevance, as recall ranks it: each query word weighs its inverse
// document frequency (estimated from the newest records); a record earns a
// word's weight when it contains the word, or part of it when it contains
// the parts of an identifier or path the word is made of ("GenFish" in
// TestFailGenFishCompletionFile). A full path the record names earns a
// bonus a file of the same base name does not, and so does a test name,
// error code or symbol it reports exactly. The sum, over the query's total
// weight, orders records; recency and freshness only break near-ties.

const (
	// partCredit is what a word found only through its parts earns, at most.
	partCredit = 0.9
	// pathBonus, baseBonus, nameBonus and phraseBonus are added for a full
	// path the record names, a file name it names, a test name, code or
	// symbol it reports exactly, and the query's words in its order.
	pathBonus   = 0.5
	baseBonus   = 0.25
	nameBonus   = 0.3
	phraseBonus = 0.4
	// bands is how finely relevance is compared: records within 1/bands of
	// each other are near-equal and ordered by freshness, then recency.
	bands = 25
)

// stopWords carry no meaning in a query typed as a sentence.
var stopWords = map[string]bool{"the": true, "a": true, "an": true, "of": true, "to": true, "in": true,
	"on": true, "with": true, "why": true, "does": true, "did": true, "do": true, "is": true, "are": true,
	"was": true, "which": true, "what": true, "when": true, "how": true, "because": true, "about": true,
	"for": true, "and": true, "or": true, "it": true, "its": true, "this": true, "that": true, "from": true,
	"by": true, "at": true, "be": true, "into": true}

// qword is one query word with the parts it is made of.
type qword struct {
	text  string   // lower case
	parts []string // lower case; nil when the word is one part
	idf   float64
	pidf  []float64
}

// weight is what a record containing the word earns.
func (w qword) weight() float64 {
	if len(w.parts) == 0 {
		return w.idf
	}
	sum := 0.0
	for _, p := range w.pidf {
		sum += p
	}
	return (w.idf + sum/float64(len(w.pidf))) / 2
}

// credit is the share of the word's weight a record earns.
func (w qword) credit(c *candidate) float64 {
	if c.has(w.text) {
		return 1
	}
	if len(w.parts) == 0 {
		return 0
	}
	got, all := 0.0, 0.0
	for i, p := range w.parts {
		all += w.pidf[i]
		if c.has(p) {
			got += w.pidf[i]
		}
	}
	if all == 0 {
		return 0
	}
	return partCredit * got / all
}

// queryWords are the query's meaningful words, each with its parts.
func queryWords(q query) []qword {
	var out []qword
	seen := map[string]bool{}
	for _, t := range q.terms {
		lt := strings.ToLower(t)
		if stopWords[lt] || seen[lt] {
			continue
		}
		seen[lt] = true
		w := qword{text: lt}
		if parts := lowerParts(t); len(parts) > 1 {
			w.parts = parts
		}
		out = append(out, w)
	}
	return out
}

// lowerParts is identParts of a word, lower case, each once.
func lowerParts(s string) []string {
	var out []string
	for _, p := range identParts(s) {
		if lp := strings.ToLower(p); !slices.Contains(out, lp) {
			out = append(out, lp)
		}
	}
	return out
}

// ftsTerms are the words the candidate search looks for: every query word
// and every part of one.
func ftsTerms(ws []qword) []string {
	var out []string
	for _, w := range ws {
		if !slices.Contains(out, w.text) {
			out = append(out, w.text)
		}
		for _, p := range w.parts {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// docShare estimates, for each word, its inverse document frequency from
// the newest sampleSize records: a count stops at the sample's size, so a
// common word costs no more than a rare one.
func docShare(ctx context.Context, tx *store.Tx, words []string) (map[string]float64, error) {
	var newest, oldest int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce((SELECT max(id) FROM records), 0), coalesce((SELECT min(id) FROM records), 0)`).Scan(&newest, &oldest); err != nil {
		return nil, err
	}
	from := max(newest-sampleSize, oldest-1)
	sample := float64(newest - from)
	idf := map[string]float64{}
	for _, w := range words {
		var docs float64
		err := tx.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM records_fts
			WHERE records_fts MATCH ? AND rowid > ? LIMIT ?)`, quoteTerm(w), from, sampleSize).Scan(&docs)
		if err != nil {
			return nil, fmt.Errorf("term frequency: %w", err)
		}
		idf[w] = math.Log((sample + 1) / (docs + 0.5))
	}
	return idf, nil
}

func quoteTerm(t string) string { return `"` + strings.ReplaceAll(t, `"`, `""`) + `"` }

// candidate is a record recall scores, with the text it searched.
type candidate struct {
	id    int64
	text  string // command, label, digest and facts, as indexed
	lower string // text with ASCII letters lowered, byte for byte
	files []string
}

// loadCandidates reads the indexed text and the files of records.
func loadCandidates(ctx context.Context, tx *store.Tx, ids []int64) (map[int64]*candidate, error) {
	out := map[int64]*candidate{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	in := "(?" + strings.Repeat(",?", len(ids)-1) + ")"
	rows, err := tx.QueryContext(ctx, `SELECT rowid, command, label, digest, facts FROM records_fts WHERE rowid IN `+in, args...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var c candidate
		var cmd, label, digest, facts string
		if err := rows.Scan(&c.id, &cmd, &label, &digest, &facts); err != nil {
			rows.Close()
			return nil, err
		}
		c.text = cmd + "\n" + label + "\n" + digest + "\n" + facts
		c.lower = asciiLower(c.text)
		out[c.id] = &c
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = tx.QueryContext(ctx, `SELECT record_id, path FROM record_files WHERE record_id IN `+in, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var p string
		if err := rows.Scan(&id, &p); err != nil {
			return nil, err
		}
		if c := out[id]; c != nil {
			c.files = append(c.files, p)
		}
	}
	return out, rows.Err()
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// has reports whether the record holds w (lower case) as a word of the
// index (letters, digits and '_') or as a part of one, the way identParts
// splits them: fish in fish_completions and in GenFishCompletion.
func (c *candidate) has(w string) bool {
	t, l := c.text, c.lower
	for i := 0; i+len(w) <= len(l); {
		j := strings.Index(l[i:], w)
		if j < 0 {
			return false
		}
		at, end := i+j, i+j+len(w)
		i = at + 1
		if (at == 0 || !isTokenByte(t[at-1])) && (end == len(t) || !isTokenByte(t[end])) {
			return true // a whole word
		}
		if partStart(t, at) && partEnd(t, end) {
			return true
		}
	}
	return false
}

func isTokenByte(c byte) bool { return c == '_' || isAlnum(c) }
func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
func isUpperByte(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLowerByte(c byte) bool { return c >= 'a' && c <= 'z' }

// partStart reports whether a part of a word may start at i: after a
// separator, at a lower-to-upper change, or where an acronym's last capital
// starts a word (HTTPServer: Server).
func partStart(t string, i int) bool {
	if i == 0 || !isAlnum(t[i-1]) {
		return true
	}
	if isUpperByte(t[i]) && isLowerByte(t[i-1]) {
		return true
	}
	return isUpperByte(t[i-1]) && isUpperByte(t[i]) && i+1 < len(t) && isLowerByte(t[i+1])
}

// partEnd reports whether a part of a word may end before i.
func partEnd(t string, i int) bool {
	if i == len(t) || !isAlnum(t[i]) {
		return true
	}
	if isLowerByte(t[i-1]) && isUpperByte(t[i]) {
		return true
	}
	return isUpperByte(t[i-1]) && isUpperByte(t[i]) && i+1 < len(t) && isLowerByte(t[i+1])
}

// relevance scores a candidate for the query.
func relevance(c *candidate, ws []qword, q query) float64 {
	total, got := 0.0, 0.0
	for _, w := range ws {
		wt := w.weight()
		total += wt
		got += wt * w.credit(c)
	}
	score := 0.0
	if total > 0 {
		score = got / total
	}
	for _, p := range q.paths {
		if !namesPath(c, p) {
			continue
		}
		if strings.Contains(strings.TrimPrefix(p, "/"), "/") {
			score += pathBonus
		} else {
			score += baseBonus
		}
		break
	}
	if len(ws) > 1 && q.phrase != nil && q.phrase.MatchString(c.text) {
		score += phraseBonus
	}
	for _, n := range q.names {
		// A name, not a plain word: it has a separator or an inner capital.
		isName := strings.ContainsAny(n, "_:.") || hasUpperInside(n)
		if isName && containsWord(c.text, n) {
			score += nameBonus
			break
		}
	}
	return score
}

// namesPath reports whether a record names the path p: one of its files is
// p or ends in /p, or its text has p not preceded by more path.
func namesPath(c *candidate, p string) bool {
	p = strings.TrimPrefix(p, "/")
	for _, f := range c.files {
		if f == p || strings.HasSuffix(f, "/"+p) {
			return true
		}
	}
	return containsWord(c.text, p)
}

// containsWord reports whether s holds w with no word or path character
// right before or after it.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		at, end := i+j, i+j+len(w)
		before := at == 0 || !isWordByte(s[at-1])
		after := end == len(s) || !isWordByte(s[end])
		if before && after {
			return true
		}
		i = at + 1
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// hasUpperInside reports an upper-case letter past the first: a CamelCase
// name, not a word starting a sentence.
func hasUpperInside(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// band is a relevance's comparison class.
func band(rel float64) int { return int(math.Floor(rel*bands + 1e-9)) }
