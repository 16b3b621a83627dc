package team

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Record is a record as the team shares it.
type Record struct {
	Key       string    `json:"key"`
	RepoID    string    `json:"repo_id"`
	Command   string    `json:"command"`
	Label     string    `json:"label"`
	ExitCode  *int      `json:"exit_code"`
	Intent    string    `json:"intent"`
	Summary   string    `json:"summary"`
	Raw       []byte    `json:"-"`
	Files     []File    `json:"files"`
	Commit    string    `json:"commit"`
	Branch    string    `json:"branch"`
	Author    string    `json:"author"`
	Machine   string    `json:"machine"`
	CI        bool      `json:"ci"`
	CreatedAt time.Time `json:"created_at"`
	Signature string    `json:"-"`
	// Parts are the parts of its compound words (rank.PartsText), for the
	// search; not signed, as they only find the record.
	Parts string `json:"-"`
	// rawSum is the SHA-256 of Raw as the store computed it, when Raw was
	// not fetched.
	rawSum []byte
	// rawUnread says neither Raw nor its SHA-256 was read (Candidates
	// without sums): the record cannot be verified.
	rawUnread bool
}

// File is a file a record named, as its publisher's work tree held it.
type File struct {
	Path    string `json:"path"`
	SHA256  string `json:"sha256,omitempty"` // "" when it was not read
	Size    int64  `json:"size"`
	Existed bool   `json:"existed"`
}

// Sign signs r with the team's private key (Ed25519, over what a reader
// relies on: the repository, the command, the output and every file's
// hash). Readers verify with the public key alone, so a laptop that can
// check a signature cannot make one.
func (r *Record) Sign(key ed25519.PrivateKey) {
	r.Signature = sign(key, r.signed())
}

// Signed reports whether r carries a valid signature by the holder of
// the private half of key.
func (r *Record) Signed(key ed25519.PublicKey) bool {
	return !r.rawUnread && verify(key, r.signed(), r.Signature)
}

// signed is the message a signature covers.
func (r *Record) signed() []byte {
	var b strings.Builder
	files, _ := json.Marshal(r.Files)
	exit := "none"
	if r.ExitCode != nil {
		exit = fmt.Sprint(*r.ExitCode)
	}
	sum := r.rawSum
	if sum == nil {
		s := sha256.Sum256(r.Raw)
		sum = s[:]
	}
	for _, part := range []string{r.Key, r.RepoID, r.Command, r.Label, exit, r.Summary, hex.EncodeToString(sum),
		string(files), r.Commit, r.Author, r.Machine, r.CreatedAt.UTC().Format(time.RFC3339Nano)} {
		fmt.Fprintf(&b, "%d:%s;", len(part), part)
	}
	return []byte(b.String())
}

// Publish stores records; a record whose key is there already is left as
// it is (publishing again is harmless). It returns how many were new.
func (s *Store) Publish(ctx context.Context, rs []Record) (int, error) {
	batch := &pgx.Batch{}
	for _, r := range rs {
		files, err := json.Marshal(r.Files)
		if err != nil {
			return 0, err
		}
		batch.Queue(`INSERT INTO team_records (key, repo_id, command, label, exit_code, intent, summary, raw, files,
				commit, branch, author, machine, ci, created_at, signature, parts)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
			ON CONFLICT (key) DO NOTHING`,
			r.Key, r.RepoID, r.Command, r.Label, r.ExitCode, r.Intent, r.Summary, nonNil(r.Raw), files,
			r.Commit, r.Branch, r.Author, r.Machine, r.CI, r.CreatedAt, r.Signature, r.Parts)
	}
	return s.send(ctx, batch, len(rs), "records")
}

// Query lists the team's newest records.
type Query struct {
	RepoID string
	Limit  int
}

// recordFields are what a search reads of a record but its raw output;
// recordColumns add the output's SHA-256, which stands for it in a
// signature (scanRecords reads both).
const (
	recordFields = `key, repo_id, command, label, exit_code, intent, summary, files, commit, branch, author, machine, ci,
	created_at, signature`
	recordColumns = recordFields + `, sha256(raw)`
)

// Search lists the newest records of a repository, raw output left out.
func (s *Store) Search(ctx context.Context, q Query) ([]Record, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeouts.Query)
	defer cancel()
	if q.Limit <= 0 {
		q.Limit = 10
	}
	rows, err := s.conn.Query(ctx, `SELECT `+recordColumns+` FROM team_records WHERE repo_id = $1 ORDER BY created_at DESC LIMIT $2`,
		q.RepoID, q.Limit)
	if err != nil {
		return nil, fmt.Errorf("search the team's records: %w", err)
	}
	return scanRecords(rows)
}

// Found is what Candidates found: the records to rank, and how many of
// the newest records hold each word, to weigh it by.
type Found struct {
	Records []Record
	Docs    map[string]float64 // by term: records of the sample that hold it
	Sample  float64            // the sample's size
}

// Candidates finds, in one round trip, the records worth ranking for
// terms — for each term the newest perTerm records that hold it (as a word
// or a part of one) — and, over the newest sample records, how many hold
// each term. Each term is a statement of its own, so the server plans it
// knowing how common the term is: a common one walks the newest records,
// a rare one the search index.
//
// sums says whether each record's raw output is hashed for its signature
// (Record.Signed): the server reads and hashes the whole output of every
// record it returns, which costs more than the search when outputs are
// long. Without sums a record is never verified.
func (s *Store) Candidates(ctx context.Context, repoID string, terms []string, perTerm, sample int, sums bool) (Found, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeouts.Query)
	defer cancel()
	f := Found{Docs: map[string]float64{}}
	batch := &pgx.Batch{}
	for _, t := range terms {
		batch.Queue(newestHolding(sums), repoID, t, perTerm)
	}
	// Each term's query made once, not once a record.
	batch.Queue(`WITH s AS MATERIALIZED (SELECT search FROM team_records WHERE repo_id = $1 ORDER BY created_at DESC LIMIT $3),
		q AS MATERIALIZED (SELECT t.term, plainto_tsquery('simple', t.term) AS tq FROM unnest($2::text[]) AS t(term))
		SELECT q.term, count(*) FILTER (WHERE s.search @@ q.tq), count(*) FROM q CROSS JOIN s GROUP BY q.term`,
		repoID, terms, sample)
	res := s.conn.SendBatch(ctx, batch)
	defer res.Close()
	seen := map[string]bool{}
	for range terms {
		rows, err := res.Query()
		if err != nil {
			return f, fmt.Errorf("search the team's records: %w", err)
		}
		recs, err := scanRecords(rows)
		if err != nil {
			return f, fmt.Errorf("search the team's records: %w", err)
		}
		for _, r := range recs {
			if !seen[r.Key] {
				seen[r.Key] = true
				r.rawUnread = !sums
				f.Records = append(f.Records, r)
			}
		}
	}
	rows, err := res.Query()
	if err != nil {
		return f, fmt.Errorf("weigh the words: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var term string
		var docs, n float64
		if err := rows.Scan(&term, &docs, &n); err != nil {
			return f, err
		}
		f.Docs[term], f.Sample = docs, n
	}
	return f, rows.Err()
}

// newestHolding is the statement of the newest records ($3 of them) of
// repository $1 holding the term $2, with their outputs' sums or NULL in
// their place (scanRecords). The sums are taken of the records kept: in
// the select list of the search itself they were taken of every record
// holding the term, before the newest were kept.
func newestHolding(sums bool) string {
	const holding = `FROM team_records WHERE repo_id = $1 AND search @@ plainto_tsquery('simple', $2)
		ORDER BY created_at DESC LIMIT $3`
	if !sums {
		return `SELECT ` + recordFields + `, NULL::bytea ` + holding
	}
	return `SELECT ` + recordColumns + ` FROM (SELECT ` + recordFields + `, raw ` + holding + `) AS kept
		ORDER BY created_at DESC`
}

func scanRecords(rows pgx.Rows) ([]Record, error) {
	defer rows.Close()
	var out []Record
	for rows.Next() {
		var r Record
		var files []byte
		if err := rows.Scan(&r.Key, &r.RepoID, &r.Command, &r.Label, &r.ExitCode, &r.Intent, &r.Summary, &files,
			&r.Commit, &r.Branch, &r.Author, &r.Machine, &r.CI, &r.CreatedAt, &r.Signature, &r.rawSum); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(files, &r.Files); err != nil {
			return nil, fmt.Errorf("record %s: files: %w", r.Key, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Raw is a record's whole output.
func (s *Store) Raw(ctx context.Context, key string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeouts.Query)
	defer cancel()
	var raw []byte
	err := s.conn.QueryRow(ctx, `SELECT raw FROM team_records WHERE key = $1`, key).Scan(&raw)
	return raw, err
}

// Counts are what the team store holds.
type Counts struct {
	Records int `json:"records"`
	Signed  int `json:"signed"`
}

// Count counts the records of a repository.
func (s *Store) Count(ctx context.Context, repoID string) (Counts, error) {
	var c Counts
	err := s.conn.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE signature <> '') FROM team_records WHERE repo_id = $1`,
		repoID).Scan(&c.Records, &c.Signed)
	return c, err
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
