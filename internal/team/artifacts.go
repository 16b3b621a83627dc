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

// Artifact is a derived artifact as the team shares it: every slice of it,
// each with the SHA-256 of the inputs it was derived from.
type Artifact struct {
	ID        string          `json:"id"` // the SHA-256 of what it says (Seal)
	RepoID    string          `json:"repo_id"`
	Type      string          `json:"type"`
	Key       string          `json:"key"`
	Commit    string          `json:"commit"`
	Tree      string          `json:"tree"`
	Slices    []ArtifactSlice `json:"slices"`
	Author    string          `json:"author"`
	Machine   string          `json:"machine"`
	CI        bool            `json:"ci"`
	CreatedAt time.Time       `json:"created_at"`
	Signature string          `json:"-"`
}

// ArtifactSlice is one slice of a shared artifact. Content is fetched
// apart from the rest (Contents); ContentSHA256 vouches for it.
type ArtifactSlice struct {
	Name              string `json:"slice"`
	PathSet           string `json:"path_set,omitempty"`
	Inputs            []File `json:"inputs"`
	AgentVersion      string `json:"agent_version,omitempty"`
	ConfigDigest      string `json:"config_digest,omitempty"`
	PolicyDigest      string `json:"policy_digest,omitempty"`
	EntitlementDigest string `json:"entitlement_digest,omitempty"`
	TTLSeconds        int64  `json:"ttl_seconds,omitempty"`
	ContentSHA256     string `json:"content_sha256"`
	Content           string `json:"-"`
}

// Seal sets each slice's content hash and the artifact's id from what it
// says: publishing the same artifact twice gives the same id.
func (a *Artifact) Seal() {
	for i := range a.Slices {
		sum := sha256.Sum256([]byte(a.Slices[i].Content))
		a.Slices[i].ContentSHA256 = hex.EncodeToString(sum[:])
	}
	a.ID = a.computeID()
}

func (a *Artifact) computeID() string {
	sl, _ := json.Marshal(a.Slices)
	var b strings.Builder
	for _, part := range []string{a.RepoID, a.Type, a.Key, a.Commit, a.Tree, string(sl)} {
		fmt.Fprintf(&b, "%d:%s;", len(part), part)
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// Intact reports whether the artifact says what its id and content hashes
// say: nothing was changed after it was sealed.
func (a *Artifact) Intact() bool {
	if a.ID != a.computeID() {
		return false
	}
	for _, sl := range a.Slices {
		sum := sha256.Sum256([]byte(sl.Content))
		if hex.EncodeToString(sum[:]) != sl.ContentSHA256 {
			return false
		}
	}
	return true
}

// Sealed reports whether the artifact's id is the hash of what it says
// (its contents apart: Contents checks those).
func (a *Artifact) Sealed() bool { return a.ID == a.computeID() }

func (a *Artifact) signed() []byte {
	var b strings.Builder
	for _, part := range []string{a.ID, a.Author, a.Machine, fmt.Sprint(a.CI), a.CreatedAt.UTC().Format(time.RFC3339Nano)} {
		fmt.Fprintf(&b, "%d:%s;", len(part), part)
	}
	return []byte(b.String())
}

// Sign signs the sealed artifact with the team's private key. The
// signature covers its id, so every input hash and every content hash.
func (a *Artifact) Sign(key ed25519.PrivateKey) {
	a.Signature = sign(key, a.signed())
}

// Signed reports whether the artifact carries a valid signature by the
// holder of key's private half, and says what its id says.
func (a *Artifact) Signed(key ed25519.PublicKey) bool {
	return a.ID == a.computeID() && verify(key, a.signed(), a.Signature)
}

// PublishArtifacts stores sealed artifacts; one stored before is left as
// it is. It returns how many were new.
func (s *Store) PublishArtifacts(ctx context.Context, as []Artifact) (int, error) {
	batch := &pgx.Batch{}
	for _, a := range as {
		meta, err := json.Marshal(a.Slices)
		if err != nil {
			return 0, err
		}
		contents := make([][]byte, len(a.Slices))
		size := 0
		for i, sl := range a.Slices {
			contents[i] = []byte(sl.Content)
			size += len(sl.Content)
		}
		batch.Queue(`INSERT INTO team_artifacts (id, repo_id, type, key, commit, tree, slices, contents, bytes,
				author, machine, ci, created_at, signature)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT (id) DO NOTHING`,
			a.ID, a.RepoID, a.Type, a.Key, a.Commit, a.Tree, meta, contents, size, a.Author, a.Machine, a.CI, a.CreatedAt, a.Signature)
	}
	return s.send(ctx, batch, len(as), "artifacts")
}

// MaxCandidates bounds the versions of one artifact a lookup considers.
const MaxCandidates = 32

// FindArtifacts are the newest versions of an artifact of a repository,
// without their contents (Contents fetches the chosen one's).
func (s *Store) FindArtifacts(ctx context.Context, repoID, typ, key string) ([]Artifact, error) {
	return s.artifacts(ctx, `repo_id = $1 AND type = $2 AND key = $3`, MaxCandidates, repoID, typ, key)
}

// ListArtifacts are the newest artifacts of a repository, up to limit,
// without their contents.
func (s *Store) ListArtifacts(ctx context.Context, repoID string, limit int) ([]Artifact, error) {
	return s.artifacts(ctx, `repo_id = $1`, limit, repoID)
}

func (s *Store) artifacts(ctx context.Context, where string, limit int, args ...any) ([]Artifact, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeouts.Query)
	defer cancel()
	rows, err := s.conn.Query(ctx, fmt.Sprintf(`SELECT id, repo_id, type, key, commit, tree, slices, author, machine, ci, created_at,
		signature FROM team_artifacts WHERE %s ORDER BY created_at DESC LIMIT %d`, where, limit), args...)
	if err != nil {
		return nil, fmt.Errorf("find the team's artifacts: %w", err)
	}
	defer rows.Close()
	var out []Artifact
	for rows.Next() {
		var a Artifact
		var meta []byte
		if err := rows.Scan(&a.ID, &a.RepoID, &a.Type, &a.Key, &a.Commit, &a.Tree, &meta, &a.Author, &a.Machine, &a.CI,
			&a.CreatedAt, &a.Signature); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(meta, &a.Slices); err != nil {
			continue // not what freshctx writes: never a candidate
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Contents fills the slices' contents of an artifact FindArtifacts found,
// and reports whether they are the contents its hashes vouch for.
func (s *Store) Contents(ctx context.Context, a *Artifact) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeouts.Query)
	defer cancel()
	var contents [][]byte
	if err := s.conn.QueryRow(ctx, `SELECT contents FROM team_artifacts WHERE id = $1`, a.ID).Scan(&contents); err != nil {
		return false, fmt.Errorf("fetch the team's artifact: %w", err)
	}
	if len(contents) != len(a.Slices) {
		return false, nil
	}
	for i := range a.Slices {
		a.Slices[i].Content = string(contents[i])
	}
	return a.Intact(), nil
}

// CountArtifacts counts the artifacts of a repository and how many are
// signed.
func (s *Store) CountArtifacts(ctx context.Context, repoID string) (Counts, error) {
	var c Counts
	err := s.conn.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE signature <> '') FROM team_artifacts WHERE repo_id = $1`,
		repoID).Scan(&c.Records, &c.Signed)
	return c, err
}
