package redact

import (
	"bytes"

	"github.com/freshctx/freshctx/internal/rx"
)

// keywordIndex finds which of a set of keywords (ASCII) occur in a line,
// ignoring ASCII case. It is the prefilter every line passes through, so it
// is built for speed: keywords are bucketed by a hash of their first four
// bytes (three-byte keywords by their three), folded; a line is read once,
// keeping its last four folded bytes in a word, and costs two table loads
// per byte plus a short comparison where a bucket is not empty. Keywords
// of one or two bytes are found with a byte search. (An Aho-Corasick
// automaton, gitleaks' own prefilter, measured at about a third of this
// speed on a `go test -v` log.)
type keywordIndex struct {
	by4, by3 table
	short    []keyword // one- and two-byte keywords
}

// table buckets keywords by a hash of their first n bytes.
type table struct {
	n      int
	bucket *[1 << tableBits]uint16 // 1 + index into groups, 0 for none
	groups [][]keyword
}

const tableBits = 14

type keyword struct {
	word []byte // lower case
	id   int
}

func hash(w uint32) uint32 { return (w * 2654435761) >> (32 - tableBits) }

// prefix packs the first n bytes of a folded word as the scan sees them.
func prefix(word []byte, n int) uint32 {
	var w uint32
	for _, c := range word[:n] {
		w = w<<8 | uint32(c)
	}
	return w
}

func (t *table) add(k keyword) {
	h := hash(prefix(k.word, t.n))
	if t.bucket[h] == 0 {
		t.groups = append(t.groups, nil)
		t.bucket[h] = uint16(len(t.groups))
	}
	g := t.bucket[h] - 1
	t.groups[g] = append(t.groups[g], k)
}

// newKeywordIndex indexes words; a match reports the word's position in
// words.
func newKeywordIndex(words []string) *keywordIndex {
	x := &keywordIndex{
		by4: table{n: 4, bucket: new([1 << tableBits]uint16)},
		by3: table{n: 3, bucket: new([1 << tableBits]uint16)},
	}
	for id, w := range words {
		k := keyword{word: []byte(w), id: id}
		for i, c := range k.word {
			k.word[i] = rx.Lower[c]
		}
		switch {
		case len(k.word) >= 4:
			x.by4.add(k)
		case len(k.word) == 3:
			x.by3.add(k)
		default:
			x.short = append(x.short, k)
		}
	}
	return x
}

// scan calls found for every occurrence of every keyword in line, with the
// keyword's id and the occurrence's byte range.
func (x *keywordIndex) scan(line []byte, found func(id, start, end int)) {
	if len(line) >= 3 {
		w := uint32(rx.Lower[line[0]])<<8 | uint32(rx.Lower[line[1]])
		by3, by4 := x.by3.bucket, x.by4.bucket
		for i := 2; i < len(line); i++ {
			w = w<<8 | uint32(rx.Lower[line[i]])
			if g := by3[hash(w&0xffffff)]; g != 0 {
				check(line, i-2, x.by3.groups[g-1], found)
			}
			if g := by4[hash(w)]; g != 0 && i >= 3 {
				check(line, i-3, x.by4.groups[g-1], found)
			}
		}
	}
	for _, k := range x.short {
		scanShort(line, k, found)
	}
}

func check(line []byte, at int, group []keyword, found func(id, start, end int)) {
	for _, k := range group {
		if end := at + len(k.word); end <= len(line) && equalFold(line[at:end], k.word) {
			found(k.id, at, end)
		}
	}
}

// scanShort finds a keyword of one or two bytes, searching for its last
// byte (a rare one, like the "~" of "q~", makes this a fast byte search).
func scanShort(line []byte, k keyword, found func(id, start, end int)) {
	last := k.word[len(k.word)-1]
	upper := last
	if 'a' <= last && last <= 'z' {
		upper -= 'a' - 'A'
	}
	for from := len(k.word) - 1; from < len(line); {
		i := bytes.IndexByte(line[from:], last)
		if j := bytes.IndexByte(line[from:], upper); upper != last && j >= 0 && (i < 0 || j < i) {
			i = j
		}
		if i < 0 {
			return
		}
		end := from + i + 1
		if start := end - len(k.word); equalFold(line[start:end], k.word) {
			found(k.id, start, end)
		}
		from = end
	}
}

// equalFold compares b, folded, with lower.
func equalFold(b, lower []byte) bool {
	for i, c := range b {
		if rx.Lower[c] != lower[i] {
			return false
		}
	}
	return true
}
