package registry

import (
	"context"
	"fmt"
	"time"

	"github.com/freshctx/freshctx/internal/store"
)

// File is one registered file, as `registry list` shows it.
type File struct {
	Path             string     `json:"path"`
	Digest           string     `json:"digest"`
	Size             int64      `json:"size"`
	Lang             string     `json:"lang"`
	Summary          *string    `json:"summary"`
	SummaryStale     bool       `json:"summary_stale"`
	SummaryUpdatedAt *time.Time `json:"summary_updated_at"`
	// SummaryBy is who wrote the summary: "agent", "person", "model", or
	// a teammate or CI through the team store ("NAME (team)"); empty for a
	// summary written before freshctx kept its author.
	SummaryBy string `json:"summary_by,omitempty"`
	// SummarySource is the model, endpoint and prompt version of a
	// summary a model wrote.
	SummarySource *Source `json:"summary_source,omitempty"`
	// SummarySHA256 is the digest of the exact content the summary
	// describes: the file's digest when the summary is current.
	SummarySHA256 string `json:"summary_sha256,omitempty"`
	// LinesAdded and LinesRemoved say how far a stale summary's file moved
	// from the content the summary describes.
	LinesAdded   int `json:"lines_added"`
	LinesRemoved int `json:"lines_removed"`
}

// ListCounts count the registry and what it skipped, by reason.
type ListCounts struct {
	Files        int            `json:"files"`
	Stale        int            `json:"stale"`
	Unsummarized int            `json:"unsummarized"`
	Skipped      map[string]int `json:"skipped"`
}

// ListResult is `registry list`.
type ListResult struct {
	Files  []File     `json:"files"`
	Counts ListCounts `json:"counts"`
	// LastVerifiedSHA is the commit the registry was last verified at.
	LastVerifiedSHA string `json:"last_verified_sha"`
	// SkippedFiles names the skipped files and why, by path, the first
	// maxSkippedListed of them (Counts.Skipped counts them all).
	SkippedFiles []SkippedFile `json:"skipped_files"`
	// Synced is what ListCurrent did first to bring the rows up to date
	// (trust or verify); empty when the registry had no rows to check.
	Synced string `json:"synced,omitempty"`
}

// ListCurrent lists the registry as it is now: a registry with rows is
// first synced (trust: an lstat per row; verify: only what may have
// changed is hashed, and written), so that no row and no summary_stale
// speaks of a file as it was before an edit the registry has not seen. An
// empty registry is listed empty: sync bootstraps it.
func (s *Service) ListCurrent(ctx context.Context, staleOnly bool) (*ListResult, error) {
	var rows int
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		rows, err = countRows(ctx, tx, s.WS.Root)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("registry list: %w", err)
	}
	action := ""
	if rows > 0 {
		synced, err := s.Sync(ctx)
		if err != nil {
			return nil, fmt.Errorf("registry list: bring the registry up to date: %w", err)
		}
		action = synced.Action
	}
	res, err := s.List(ctx, staleOnly)
	if err == nil {
		res.Synced = action
	}
	return res, err
}

// SkippedFile is a file the registry does not keep, and why.
type SkippedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// maxSkippedListed bounds the skipped files list names.
const maxSkippedListed = 200

// List returns the registered files by path (only those with a stale
// summary when staleOnly), and counts, as the store holds them: as of the
// last sync or verify (ListCurrent syncs first).
func (s *Service) List(ctx context.Context, staleOnly bool) (*ListResult, error) {
	res := &ListResult{Files: []File{}, Counts: ListCounts{Skipped: map[string]int{}}, SkippedFiles: []SkippedFile{}}
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		q := `SELECT ` + rowColumns + ` FROM registry_files WHERE root = ?`
		if staleOnly {
			q += ` AND summary_stale = 1`
		}
		rows, err := tx.QueryContext(ctx, q+` ORDER BY path`, s.WS.Root)
		if err != nil {
			return err
		}
		for rows.Next() {
			r, err := scanRow(rows)
			if err != nil {
				rows.Close()
				return err
			}
			res.Files = append(res.Files, fileOf(r))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		st, err := loadState(ctx, tx, s.WS.Root)
		if err != nil {
			return err
		}
		res.LastVerifiedSHA = st.lastSHA
		if err := countAll(ctx, tx, s.WS.Root, &res.Counts); err != nil {
			return err
		}
		res.SkippedFiles, err = listSkipped(ctx, tx, s.WS.Root)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("registry list: %w", err)
	}
	return res, nil
}

func fileOf(r row) File {
	f := File{Path: r.path, Digest: r.digest, Size: r.size, Lang: r.lang, SummaryStale: r.stale,
		LinesAdded: r.added, LinesRemoved: r.removed, SummaryBy: r.summaryBy}
	if r.summary.Valid {
		f.Summary = &r.summary.String
		f.SummarySHA256 = r.digestAtSummary.String
		if r.source.Model != "" {
			src := r.source
			f.SummarySource = &src
		}
	}
	if r.summaryAt.Valid {
		t := time.Unix(0, r.summaryAt.Int64)
		f.SummaryUpdatedAt = &t
	}
	return f
}

func countAll(ctx context.Context, tx *store.Tx, root string, c *ListCounts) error {
	err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(summary_stale), 0), coalesce(sum(summary IS NULL), 0)
		FROM registry_files WHERE root = ?`, root).Scan(&c.Files, &c.Stale, &c.Unsummarized)
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT reason, count(*) FROM registry_skipped WHERE root = ? GROUP BY reason`, root)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var reason string
		var n int
		if err := rows.Scan(&reason, &n); err != nil {
			return err
		}
		c.Skipped[reason] = n
	}
	return rows.Err()
}

func listSkipped(ctx context.Context, tx *store.Tx, root string) ([]SkippedFile, error) {
	rows, err := tx.QueryContext(ctx, `SELECT path, reason FROM registry_skipped WHERE root = ? ORDER BY path LIMIT ?`,
		root, maxSkippedListed)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []SkippedFile{}
	for rows.Next() {
		var f SkippedFile
		if err := rows.Scan(&f.Path, &f.Reason); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}
