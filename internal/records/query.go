package records

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/sha"
	"github.com/freshctx/freshctx/internal/store"
)

// ErrNotFound is wrapped when a record id names no record.
var ErrNotFound = errors.New("no such record")

const recordColumns = `id, kind, command, root, cwd, label, intent, compressor, exit_code, started_at,
	duration_ms, coalesce(stdout_blob, ''), coalesce(stderr_blob, ''), stdout_bytes, stderr_bytes,
	raw_tokens, raw_tokens_exact, digest, digest_tokens, omitted, git_repo_id, git_branch, git_head,
	git_tree, git_dirty, is_git, stamped_at, redactions, inputs, file_clock_start`

type scanner interface{ Scan(dest ...any) error }

func scanRecord(row scanner) (*Record, error) {
	var r Record
	var exit sql.NullInt64
	var started, stamped, fileStart int64
	var inputs string
	g := &r.stamp.Git
	err := row.Scan(&r.ID, &r.Kind, &r.Command, &r.root, &r.Cwd, &r.Label, &r.Intent, &r.Compressor, &exit,
		&started, &r.DurationMS, &r.blobs[0], &r.blobs[1], &r.StdoutBytes, &r.StderrBytes, &r.RawTokens,
		&r.RawTokensExact, &r.Digest, &r.DigestTokens, &r.Omitted, &g.RepoID, &g.Branch, &g.Head, &g.Tree,
		&g.Dirty, &g.IsRepo, &stamped, &r.Redactions, &inputs, &fileStart)
	if err != nil {
		return nil, err
	}
	r.inputs = []string{"**"} // records made before scopes: the work tree
	if inputs != "" {
		var err error
		if strings.HasPrefix(inputs, "{") {
			var k keptScope
			err = json.Unmarshal([]byte(inputs), &k)
			r.inputs, r.inputsGiven = k.Globs, k.Given
		} else {
			err = json.Unmarshal([]byte(inputs), &r.inputs)
		}
		if err != nil {
			return nil, fmt.Errorf("record %d: input scope: %w", r.ID, err)
		}
	}
	if exit.Valid {
		code := int(exit.Int64)
		r.ExitCode = &code
	}
	r.CreatedAt = time.Unix(0, started)
	if fileStart != 0 {
		r.fileStart = time.Unix(0, fileStart)
	}
	r.stamp.At, r.stamp.Stamped = r.CreatedAt, time.Unix(0, stamped)
	r.RawBytes = r.StdoutBytes + r.StderrBytes
	r.Git = Git{Branch: g.Branch, Head: g.Head, Dirty: g.Dirty}
	return &r, nil
}

// loadFiles fills the stamps of records in one query.
func loadFiles(ctx context.Context, tx *store.Tx, recs []*Record) error {
	if len(recs) == 0 {
		return nil
	}
	ids := make([]int64, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
	}
	stamps, err := loadStamps(ctx, tx, ids)
	if err != nil {
		return fmt.Errorf("load record files: %w", err)
	}
	var rest []int64
	for _, id := range ids {
		if _, ok := stamps[id]; !ok {
			rest = append(rest, id)
		}
	}
	if len(rest) > 0 {
		rows, err := freshness.LoadFiles(ctx, tx, "record_files", "record_id", rest)
		if err != nil {
			return fmt.Errorf("load record files: %w", err)
		}
		for id, files := range rows {
			stamps[id] = files
		}
	}
	for _, r := range recs {
		r.stamp.Files = stamps[r.ID]
		r.Files = filesOf(r.stamp)
	}
	return nil
}

// Get loads one record with its files (no freshness).
func (s *Service) Get(ctx context.Context, id int64) (*Record, error) {
	var r *Record
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		r, err = scanRecord(tx.QueryRowContext(ctx, "SELECT "+recordColumns+" FROM records WHERE id = ?", id))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("record %d: %w", id, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("load record %d: %w", id, err)
		}
		return loadFiles(ctx, tx, []*Record{r})
	})
	return r, err
}

// Show loads a record and checks its freshness now; counts not made yet
// (Options.TokensLater) are made.
func (s *Service) Show(ctx context.Context, id int64) (*Record, error) {
	r, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.CheckAll(ctx, []*Record{r}); err != nil {
		return nil, err
	}
	s.countPending(ctx, []*Record{r})
	return r, nil
}

// List returns the newest records first, at most limit (0: all), with
// their freshness checked against one snapshot and their token counts
// made.
func (s *Service) List(ctx context.Context, limit int) ([]*Record, error) {
	if limit <= 0 {
		limit = -1
	}
	var recs []*Record
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		recs, err = queryRecords(ctx, tx, "ORDER BY id DESC LIMIT ?", limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list records: %w", err)
	}
	if err := s.CheckAll(ctx, recs); err != nil {
		return nil, err
	}
	s.countPending(ctx, recs)
	return recs, nil
}

// queryRecords loads the records a clause selects, with their files.
func queryRecords(ctx context.Context, tx *store.Tx, clause string, args ...any) ([]*Record, error) {
	rows, err := tx.QueryContext(ctx, "SELECT "+recordColumns+" FROM records "+clause, args...)
	if err != nil {
		return nil, err
	}
	var recs []*Record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		recs = append(recs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return recs, loadFiles(ctx, tx, recs)
}

// Raw opens one stream of a record, byte for byte.
func (s *Service) Raw(ctx context.Context, id int64, stream Stream) (io.ReadCloser, error) {
	r, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	rc, err := s.openStream(r.blobs[stream])
	if err != nil {
		return nil, fmt.Errorf("record %d: %w", id, err)
	}
	return rc, nil
}

// openStream opens a kept stream by its blob's digest; "" is an empty
// stream.
func (s *Service) openStream(h string) (io.ReadCloser, error) {
	if h == "" {
		return io.NopCloser(strings.NewReader("")), nil
	}
	d, err := sha.Parse(h)
	if err != nil {
		return nil, err
	}
	return s.Store.OpenBlob(d)
}
