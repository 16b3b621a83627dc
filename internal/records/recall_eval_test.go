package records

import (
	"bufio"
	"context"
	"fmt"
	"github.com/freshctx/freshctx/internal/corpus"
	"github.com/freshctx/freshctx/internal/rank"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/compress"
	"github.com/freshctx/freshctx/internal/refs"
	"github.com/freshctx/freshctx/internal/store"
)

// The recall evaluation set: the compressor corpus's real tool outputs, and
// variants of each in which the workspace's own names (the parts of the
// files it names) are renamed, as the same tools would print in other
// projects; queries of the kinds users type, each with its right answers,
// are in testdata/recall/queries.txt.

// evalVariants is how many renamed copies of each corpus output the set holds.
const evalVariants = 40

// evalVocabulary names the variants' projects' parts.
var evalVocabulary = []string{"merge", "ledger", "scheduler", "daemon", "quota", "shard", "billing", "router",
	"cache", "gateway", "invoice", "ticket", "cluster", "vault", "sensor", "plugin", "stream", "journal",
	"catalog", "payroll", "tenant", "webhook", "archive", "pipeline"}

// evalStop are parts too generic to be a project's own name.
var evalStop = map[string]bool{"test": true, "tests": true, "src": true, "lib": true, "main": true, "home": true,
	"dev": true, "usr": true, "local": true, "index": true, "mod": true, "pkg": true, "node": true,
	"modules": true, "json": true, "init": true, "python": true, "python3": true, "decoder": true, "target": true,
	"debug": true, "deps": true, "rustc": true, "library": true, "core": true, "std": true, "runtime": true,
	"testing": true, "panic": true, "proc": true, "go": true, "build": true, "app": true, "util": true}

type evalRecord struct {
	key, cmd, out string
}

// evalCorpus is the corpus outputs and their variants, in the order they
// are stored: every original first, then variant 1 of each, and so on, so
// that variants are newer than the outputs they copy.
func evalCorpus(t testing.TB) []evalRecord {
	t.Helper()
	entries, err := corpus.Load("../compress/testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	var originals []evalRecord
	for _, e := range entries {
		originals = append(originals, evalRecord{key: e.Name, cmd: e.Cmd, out: e.Out})
	}
	all := slices.Clone(originals)
	for v := 1; v <= evalVariants; v++ {
		for _, o := range originals {
			all = append(all, variant(o, v))
		}
	}
	return all
}

// variant v of a record renames the parts of the paths its output names.
func variant(r evalRecord, v int) evalRecord {
	words := ownWords(r.out)
	out, cmd := r.out, r.cmd
	for i, w := range words {
		to := fmt.Sprintf("%s%d", evalVocabulary[(v*7+i*5)%len(evalVocabulary)], v)
		out, cmd = renamePart(out, w, to), renamePart(cmd, w, to)
	}
	return evalRecord{key: fmt.Sprintf("%s@%d", r.key, v), cmd: cmd, out: out}
}

// renamePart replaces the word w (lower case) wherever it is a whole part
// of an identifier or path ("fish" in fish_completions.go and in GenFish,
// not in selfish), keeping an initial capital.
func renamePart(s, w, to string) string {
	lower := strings.ToLower(s)
	var b strings.Builder
	last := 0
	for i := 0; ; {
		j := strings.Index(lower[i:], w)
		if j < 0 {
			break
		}
		at, end := i+j, i+j+len(w)
		i = end
		startOK := at == 0 || !isUpperByte(s[at-1]) && !isLowerByte(s[at-1]) || (isUpperByte(s[at]) && isLowerByte(s[at-1]))
		endOK := end == len(s) || !isLowerByte(s[end])
		if !startOK || !endOK {
			continue
		}
		rep := to
		if isUpperByte(s[at]) {
			rep = strings.ToUpper(to[:1]) + to[1:]
		}
		b.WriteString(s[last:at])
		b.WriteString(rep)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// ownWords are the parts of the file names and folders an output names,
// longest first.
func ownWords(out string) []string {
	seen := map[string]bool{}
	var words []string
	for _, l := range strings.Split(out, "\n") {
		for _, ref := range refs.Line(l) {
			for _, part := range rank.IdentParts(ref.Path) {
				p := strings.ToLower(part)
				if len(p) >= 3 && !evalStop[p] && !seen[p] && !strings.ContainsAny(p, "0123456789") {
					seen[p] = true
					words = append(words, p)
				}
			}
		}
	}
	slices.SortStableFunc(words, func(a, b string) int { return len(b) - len(a) })
	return words
}

// evalQuery is one labelled query.
type evalQuery struct {
	text    string
	answers []string // record keys
}

func loadEvalQueries(t testing.TB) []evalQuery {
	t.Helper()
	f, err := os.Open("testdata/recall/queries.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var qs []evalQuery
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		text, answers, ok := strings.Cut(l, "\t=>\t")
		if !ok {
			t.Fatalf("queries.txt: want QUERY<TAB>=><TAB>KEY…: %q", l)
		}
		qs = append(qs, evalQuery{text: text, answers: strings.Fields(answers)})
	}
	return qs
}

// evalStore captures every evaluation record, as `capture` would, into a
// new store; it returns the service and each key's record id.
func evalStore(t testing.TB, recs []evalRecord) (*Service, map[string]int64) {
	t.Helper()
	s, _ := newService(t)
	ids := map[string]int64{}
	ctx := context.Background()
	for _, r := range recs {
		rec, err := s.Capture(ctx, CaptureRequest{Options: Options{Command: r.cmd, Intent: compress.Summary},
			Input: strings.NewReader(r.out)})
		if err != nil {
			t.Fatalf("capture %s: %v", r.key, err)
		}
		ids[r.key] = rec.ID
	}
	return s, ids
}

// rightAnswers resolves a query's answer keys ("NAME*": the output and all
// its variants) to record ids.
func rightAnswers(t testing.TB, q evalQuery, keyIDs map[string]int64) map[int64]bool {
	t.Helper()
	right := map[int64]bool{}
	for _, a := range q.answers {
		if name, ok := strings.CutSuffix(a, "*"); ok {
			for v := 0; v <= evalVariants; v++ {
				key := name
				if v > 0 {
					key = fmt.Sprintf("%s@%d", name, v)
				}
				if id, ok := keyIDs[key]; ok {
					right[id] = true
				}
			}
			a = name
		}
		id, ok := keyIDs[a]
		if !ok {
			t.Fatalf("query %q: no record %q", q.text, a)
		}
		right[id] = true
	}
	return right
}

// reciprocalRank is 1/rank of the first right answer in the top 10, else 0.
func reciprocalRank(got []int64, right map[int64]bool) float64 {
	for i, id := range got {
		if i == 10 {
			break
		}
		if right[id] {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// plainBM25 is SQLite FTS5 alone: the query's words, any of them, ranked by
// bm25 over the same index.
func plainBM25(ctx context.Context, s *Service, text string) ([]int64, error) {
	q := rank.Parse(text)
	if len(q.Terms) == 0 {
		return nil, nil
	}
	parts := make([]string, len(q.Terms))
	for i, t := range q.Terms {
		parts[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	var ids []int64
	err := s.searchWith(ctx, func(tx *store.Tx) error {
		var err error
		ids, err = queryIDs(ctx, tx, `SELECT rowid FROM records_fts WHERE records_fts MATCH ?
			ORDER BY bm25(records_fts) LIMIT 10`, strings.Join(parts, " OR "))
		return err
	})
	return ids, err
}

// TestRecallEvaluation reports MRR@10 and hit@1 of recall on the labelled
// set, beside plain FTS5 BM25 on the same records, and fails under an
// MRR@10 of 0.9 or when BM25 alone does as well.
func TestRecallEvaluation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 2,000-record store")
	}
	recs := evalCorpus(t)
	qs := loadEvalQueries(t)
	if len(recs) < 2000 || len(qs) < 80 {
		t.Fatalf("the set has %d records and %d queries, want at least 2,000 and 80", len(recs), len(qs))
	}
	s, keyIDs := evalStore(t, recs)
	ctx := context.Background()
	var mrr, hit1, bmMRR, bmHit1 float64
	for _, q := range qs {
		right := rightAnswers(t, q, keyIDs)
		hits, err := s.Recall(ctx, RecallRequest{Query: q.text, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		rr := reciprocalRank(ids(hits), right)
		bm, err := plainBM25(ctx, s, q.text)
		if err != nil {
			t.Fatal(err)
		}
		brr := reciprocalRank(bm, right)
		mrr, bmMRR = mrr+rr, bmMRR+brr
		if rr == 1 {
			hit1++
		}
		if brr == 1 {
			bmHit1++
		}
		if rr < 1 {
			t.Logf("rank %s for %q (bm25 %s)", rankText(rr), q.text, rankText(brr))
		}
	}
	n := float64(len(qs))
	t.Logf("recall evaluation: %d records, %d queries", len(recs), len(qs))
	t.Logf("freshctx:   MRR@10 %.3f  hit@1 %.3f", mrr/n, hit1/n)
	t.Logf("FTS5 BM25:  MRR@10 %.3f  hit@1 %.3f", bmMRR/n, bmHit1/n)
	if mrr/n < 0.9 {
		t.Errorf("MRR@10 = %.3f, want at least 0.9", mrr/n)
	}
	if mrr <= bmMRR {
		t.Errorf("MRR@10 %.3f is no better than plain FTS5 BM25's %.3f", mrr/n, bmMRR/n)
	}
}

func rankText(rr float64) string {
	if rr == 0 {
		return ">10"
	}
	return fmt.Sprint(int(1/rr + 0.5))
}

func isUpperByte(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLowerByte(c byte) bool { return c >= 'a' && c <= 'z' }
