package rank

import (
	"math"
	"slices"
	"strings"
)

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
	// bands is how finely Relevance is compared: records within 1/bands of
	// each other are near-equal and ordered by freshness, then recency.
	bands = 25
)

// stopWords carry no meaning in a query typed as a sentence.
var stopWords = map[string]bool{"the": true, "a": true, "an": true, "of": true, "to": true, "in": true,
	"on": true, "with": true, "why": true, "does": true, "did": true, "do": true, "is": true, "are": true,
	"was": true, "which": true, "what": true, "when": true, "how": true, "because": true, "about": true,
	"for": true, "and": true, "or": true, "it": true, "its": true, "this": true, "that": true, "from": true,
	"by": true, "at": true, "be": true, "into": true}

// Word is one query word with the parts it is made of.
type Word struct {
	Text  string   // lower case
	Parts []string // lower case; nil when the word is one part
	// IDF weighs the word, PartIDF each part: their inverse document
	// frequencies, as the caller estimates them over its documents.
	IDF     float64
	PartIDF []float64
}

// weight is what a record containing the word earns.
func (w Word) Weight() float64 {
	if len(w.Parts) == 0 {
		return w.IDF
	}
	sum := 0.0
	for _, p := range w.PartIDF {
		sum += p
	}
	return (w.IDF + sum/float64(len(w.PartIDF))) / 2
}

// credit is the share of the word's weight a record earns.
func (w Word) credit(c *Doc) float64 {
	if c.has(w.Text) {
		return 1
	}
	if len(w.Parts) == 0 {
		return 0
	}
	got, all := 0.0, 0.0
	for i, p := range w.Parts {
		all += w.PartIDF[i]
		if c.has(p) {
			got += w.PartIDF[i]
		}
	}
	if all == 0 {
		return 0
	}
	return partCredit * got / all
}

// Words are the query's meaningful words, each with its parts.
func Words(q Query) []Word {
	var out []Word
	seen := map[string]bool{}
	for _, t := range q.Terms {
		lt := strings.ToLower(t)
		if stopWords[lt] || seen[lt] {
			continue
		}
		seen[lt] = true
		w := Word{Text: lt}
		if parts := lowerParts(t); len(parts) > 1 {
			w.Parts = parts
		}
		out = append(out, w)
	}
	return out
}

// lowerParts is IdentParts of a word, lower case, each once.
func lowerParts(s string) []string {
	var out []string
	for _, p := range IdentParts(s) {
		if lp := strings.ToLower(p); !slices.Contains(out, lp) {
			out = append(out, lp)
		}
	}
	return out
}

// Terms are the words a candidate search looks for: every query word
// and every part of one.
func Terms(ws []Word) []string {
	var out []string
	for _, w := range ws {
		if !slices.Contains(out, w.Text) {
			out = append(out, w.Text)
		}
		for _, p := range w.Parts {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// Doc is what recall scores: a record, with the text it searched.
type Doc struct {
	ID    int64
	Text  string   // what is searched: for a record, its command, label, digest and facts
	Files []string // the files it names
	lower string   // Text with ASCII letters lowered, byte for byte
	// folds: Text holds a letter that case-folds to an ASCII one (the
	// Kelvin sign, the long s), which a byte comparison would miss.
	folds bool
}

// NewDoc is a document to score.
func NewDoc(id int64, text string, files []string) *Doc {
	return &Doc{ID: id, Text: text, Files: files, lower: asciiLower(text), folds: strings.ContainsAny(text, "\u212a\u017f")}
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
// index (letters, digits and '_') or as a part of one, the way IdentParts
// splits them: fish in fish_completions and in GenFishCompletion.
func (c *Doc) has(w string) bool {
	t, l := c.Text, c.lower
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

// Relevance scores a document for the query.
func Relevance(c *Doc, ws []Word, q Query) float64 {
	total, got := 0.0, 0.0
	for _, w := range ws {
		wt := w.Weight()
		total += wt
		got += wt * w.credit(c)
	}
	score := 0.0
	if total > 0 {
		score = got / total
	}
	for _, p := range q.Paths {
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
	if len(ws) > 1 && hasPhrase(c, q) {
		score += phraseBonus
	}
	for _, n := range q.Names {
		// A name, not a plain word: it has a separator or an inner capital.
		isName := strings.ContainsAny(n, "_:.") || hasUpperInside(n)
		if isName && containsWord(c.Text, n) {
			score += nameBonus
			break
		}
	}
	return score
}

// namesPath reports whether a record names the path p: one of its files is
// p or ends in /p, or its text has p not preceded by more path.
func namesPath(c *Doc, p string) bool {
	p = strings.TrimPrefix(p, "/")
	for _, f := range c.Files {
		if f == p || strings.HasSuffix(f, "/"+p) {
			return true
		}
	}
	return containsWord(c.Text, p)
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

// Band is a Relevance's comparison class.
func Band(rel float64) int { return int(math.Floor(rel*bands + 1e-9)) }

// IDF is the inverse document frequency of a word found in docs of a
// sample of n documents.
func IDF(n, docs float64) float64 { return math.Log((n + 1) / (docs + 0.5)) }

// RareIDF: a word in more than about 5% of a sample of 1,000 documents is
// too common to find candidates by (a document that has only common words
// of the query scores low anyway), unless every word is that common.
var RareIDF = IDF(1000, 0.05*1000)

// Candidate reports whether a document is worth scoring for the query, as
// the local store gathers them: it holds one of the rare terms (rank.Terms
// whose IDF is at least RareIDF), or a query word, or all the parts of
// one, or the query as a phrase, or names one of its paths or reports one
// of its names.
func Candidate(d *Doc, ws []Word, rare []string, q Query) bool {
	for _, t := range rare {
		if d.has(t) {
			return true
		}
	}
	for _, w := range ws {
		if d.has(w.Text) || len(w.Parts) > 0 && !slices.ContainsFunc(w.Parts, func(p string) bool { return !d.has(p) }) {
			return true
		}
	}
	for _, p := range q.Paths {
		if namesPath(d, p) {
			return true
		}
	}
	if hasPhrase(d, q) {
		return true
	}
	for _, n := range q.Names {
		if containsWord(d.Text, n) {
			return true
		}
	}
	return false
}

// hasPhrase reports whether the document holds the query's words in its
// order. Where a word is ASCII and the text holds no letter that folds to
// an ASCII one, the expression runs only if the text holds the word: it
// cannot match elsewhere, and most documents lack one of the words.
func hasPhrase(d *Doc, q Query) bool {
	if q.Phrase == nil {
		return false
	}
	for _, t := range q.Terms {
		if !d.folds && isASCII(t) && !strings.Contains(d.lower, asciiLower(t)) {
			return false
		}
	}
	return q.Phrase.MatchString(d.Text)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
