package team

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Summary is a file summary as the team shares it: of the file's bytes
// whose SHA-256 it names.
type Summary struct {
	RepoID    string    `json:"repo_id"`
	Path      string    `json:"path"`
	SHA256    string    `json:"sha256"`
	Summary   string    `json:"summary"`
	Author    string    `json:"author"`
	Machine   string    `json:"machine"`
	CI        bool      `json:"ci"`
	CreatedAt time.Time `json:"created_at"`
	Signature string    `json:"-"`
}

func (s *Summary) signed() []byte {
	var b strings.Builder
	for _, part := range []string{s.RepoID, s.Path, s.SHA256, s.Summary, s.Author, s.Machine, s.CreatedAt.UTC().Format(time.RFC3339Nano)} {
		fmt.Fprintf(&b, "%d:%s;", len(part), part)
	}
	return []byte(b.String())
}

// Sign signs the summary with the team's private key.
func (s *Summary) Sign(key ed25519.PrivateKey) {
	s.Signature = sign(key, s.signed())
}

// Signed reports whether the summary carries a valid signature by key's
// private half.
func (s *Summary) Signed(key ed25519.PublicKey) bool {
	return verify(key, s.signed(), s.Signature)
}

// PublishSummaries stores summaries; the first of the same bytes of a
// file stays (publishing again is harmless). It returns how many were new.
func (s *Store) PublishSummaries(ctx context.Context, ss []Summary) (int, error) {
	batch := &pgx.Batch{}
	for _, x := range ss {
		batch.Queue(`INSERT INTO team_summaries (repo_id, path, sha256, summary, author, machine, ci, created_at, signature)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
			x.RepoID, x.Path, x.SHA256, x.Summary, x.Author, x.Machine, x.CI, x.CreatedAt, x.Signature)
	}
	return s.send(ctx, batch, len(ss), "summaries")
}

// FileBytes names a file's content: its path and SHA-256.
type FileBytes struct{ Path, SHA256 string }

// FindSummaries are the team's summaries of exactly these files' bytes.
func (s *Store) FindSummaries(ctx context.Context, repoID string, files []FileBytes) ([]Summary, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeouts.Query)
	defer cancel()
	paths := make([]string, len(files))
	sums := make([]string, len(files))
	for i, f := range files {
		paths[i], sums[i] = f.Path, f.SHA256
	}
	rows, err := s.conn.Query(ctx, `SELECT s.repo_id, s.path, s.sha256, s.summary, s.author, s.machine, s.ci, s.created_at, s.signature
		FROM team_summaries s JOIN unnest($2::text[], $3::text[]) AS f(path, sha256) ON s.path = f.path AND s.sha256 = f.sha256
		WHERE s.repo_id = $1`, repoID, paths, sums)
	if err != nil {
		return nil, fmt.Errorf("find the team's summaries: %w", err)
	}
	defer rows.Close()
	var out []Summary
	for rows.Next() {
		var x Summary
		if err := rows.Scan(&x.RepoID, &x.Path, &x.SHA256, &x.Summary, &x.Author, &x.Machine, &x.CI, &x.CreatedAt, &x.Signature); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}
