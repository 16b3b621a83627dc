package registry

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/workspace"
)

// Summary is one summary to store.
type Summary struct {
	Path    string `json:"path"`
	Summary string `json:"summary"`
	// Want, when set, is the digest of the content the summary describes:
	// it is stored only if the file is that content now (a teammate's
	// summary of the same bytes).
	Want string `json:"-"`
	// By is who wrote it: ByAgent, ByPerson, ByModel, or a teammate's
	// name with " (team)".
	By string `json:"-"`
	// Source, for a summary a model wrote, is the model, its endpoint and
	// the prompt's version.
	Source *Source `json:"-"`
}

// Who writes summaries.
const (
	ByAgent  = "agent"
	ByPerson = "person"
	ByModel  = "model"
)

// Source is what wrote a model's summary.
type Source struct {
	Model    string `json:"model"`
	Endpoint string `json:"endpoint"`
	Prompt   string `json:"prompt_version"`
}

// SummarizeResult names the files whose summaries were stored.
type SummarizeResult struct {
	Updated []string `json:"updated"`
}

// ErrOtherContent: the summary describes other content than the file's now.
var ErrOtherContent = errors.New("the summary describes other content than the file holds now")

// nothingStored says that a batch was refused whole.
func nothingStored(n int, err error) error {
	if n == 1 {
		return fmt.Errorf("nothing stored: %w", err)
	}
	return fmt.Errorf("nothing stored (of %d summaries, all or none): %w", n, err)
}

// withoutPath drops the absolute path an OS error carries: the message
// names the root-relative one.
func withoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Summarize stores summaries, each against the file's content now: that
// content is kept (as a blob) so later drift can be measured, and the file's
// digest is refreshed. All are stored or none.
func (s *Service) Summarize(ctx context.Context, items []Summary) (*SummarizeResult, error) {
	if len(items) == 0 {
		return nil, errors.New("no summaries given")
	}
	errs, err := s.summarize(ctx, items, true)
	if err != nil {
		return nil, err
	}
	if err := firstError(errs); err != nil {
		return nil, nothingStored(len(items), err)
	}
	paths := make([]string, len(items))
	for i, it := range items {
		paths[i] = it.Path
	}
	return &SummarizeResult{Updated: paths}, nil
}

// SummarizeEach stores summaries as Summarize does, in one transaction,
// each on its own: the error of each item says why it was not stored (nil
// when it was); err is a failure of the store itself.
func (s *Service) SummarizeEach(ctx context.Context, items []Summary) (errs []error, err error) {
	return s.summarize(ctx, items, false)
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// summarize checks each item, hashes the files, and stores the items that
// passed; with all, one item that fails stores nothing.
func (s *Service) summarize(ctx context.Context, items []Summary, all bool) ([]error, error) {
	errs := make([]error, len(items))
	var paths []string
	var idx []int
	for i, it := range items {
		rel, err := s.summaryPath(it)
		if err != nil {
			errs[i] = err
			continue
		}
		items[i].Path = rel
		paths, idx = append(paths, rel), append(idx, i)
	}
	if (all && firstError(errs) != nil) || len(paths) == 0 {
		return errs, nil
	}
	digests, err := s.hashItems(ctx, items, paths, idx, errs)
	if err != nil {
		return nil, err
	}
	if all && firstError(errs) != nil {
		return errs, nil
	}
	blobs := s.copyContents(items, idx, digests, errs)
	defer func() {
		for _, w := range blobs {
			if w != nil {
				w.Discard()
			}
		}
	}()
	if all && firstError(errs) != nil {
		return errs, nil
	}
	err = s.Store.Update(ctx, func(tx *store.Tx) error {
		for k, i := range idx {
			if errs[i] != nil {
				continue
			}
			if err := s.storeSummary(ctx, tx, items[i], digests[k], blobs[k]); err != nil {
				if all {
					return err
				}
				errs[i] = err
			}
		}
		_, _, err := tx.DeleteOrphanBlobs() // the content older summaries described
		return err
	})
	if err != nil {
		return nil, err
	}
	return errs, nil
}

// hashItems hashes the files of the items at idx (named by paths), and
// sets the error of each that is unreadable, skipped, or not the content
// its summary describes.
func (s *Service) hashItems(ctx context.Context, items []Summary, paths []string, idx []int, errs []error) ([]freshness.FileDigest, error) {
	snap, err := s.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	digests, err := snap.DigestMany(ctx, paths, freshness.DigestOptions{MaxSize: s.maxSize(), Sniff: sniff})
	if err != nil {
		return nil, err
	}
	for k, d := range digests {
		switch i := idx[k]; {
		case d.Err != nil:
			errs[i] = fmt.Errorf("%s: %w", d.Path, withoutPath(d.Err))
		case d.Tag != "":
			errs[i] = fmt.Errorf("%s is skipped by the registry (%s)", d.Path, d.Tag)
		case items[i].Want != "" && d.Digest.String() != items[i].Want:
			errs[i] = fmt.Errorf("%s: %w", d.Path, ErrOtherContent)
		}
	}
	return digests, snap.Flush(ctx)
}

// summaryPath is an item's root-relative path, or why no summary of it is
// kept.
func (s *Service) summaryPath(it Summary) (string, error) {
	rel, err := s.WS.Rel(it.Path, s.Cwd)
	if err != nil {
		return "", err
	}
	if it.Summary == "" {
		return "", fmt.Errorf("%s: empty summary", rel)
	}
	if reason := skipByName(rel); reason != "" {
		return "", fmt.Errorf("%s is skipped by the registry (%s)", rel, reason)
	}
	if abs, err := s.WS.Resolve(rel); err == nil {
		if why := s.WS.SensitiveFile(rel, abs, nil); why != "" {
			return "", fmt.Errorf("%s is %s: the registry keeps no summary (and no copy) of it", rel, why)
		}
	}
	return rel, nil
}

// copyContents writes, side by side, a blob of each file a summary will
// describe (the copy later drift is measured against), flushed to disk
// before the transaction that records them: one disk sync per file, done
// at once, not one after the other. A file that is sensitive, unreadable,
// or no longer the content hashed gets its error in errs, and no blob.
func (s *Service) copyContents(items []Summary, idx []int, digests []freshness.FileDigest, errs []error) []*store.BlobWriter {
	blobs := make([]*store.BlobWriter, len(idx))
	var wg sync.WaitGroup
	limit := make(chan struct{}, copyingAtOnce)
	for k, i := range idx {
		if errs[i] != nil {
			continue
		}
		wg.Add(1)
		limit <- struct{}{}
		go func() {
			defer func() { <-limit; wg.Done() }()
			blobs[k], errs[i] = s.copyContent(items[i].Path, digests[k])
		}()
	}
	wg.Wait()
	return blobs
}

// copyingAtOnce bounds the files copied at once.
const copyingAtOnce = 16

func (s *Service) copyContent(rel string, d freshness.FileDigest) (*store.BlobWriter, error) {
	content, err := os.ReadFile(s.WS.Abs(rel))
	if err != nil {
		return nil, fmt.Errorf("summarize %s: %w", rel, withoutPath(err))
	}
	if why := workspace.SensitiveContent(content); why != "" {
		return nil, fmt.Errorf("%s holds %s: the registry keeps no summary (and no copy) of it", rel, why)
	}
	w, err := s.Store.CreateBlob()
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(content); err != nil {
		w.Discard()
		return nil, err
	}
	blob, err := w.Finish()
	if err != nil {
		w.Discard()
		return nil, err
	}
	if blob.Digest != d.Digest {
		w.Discard()
		return nil, fmt.Errorf("summarize %s: the file changed while it was read; try again", rel)
	}
	return w, nil
}

func (s *Service) storeSummary(ctx context.Context, tx *store.Tx, it Summary, d freshness.FileDigest, w *store.BlobWriter) error {
	var src Source
	if it.Source != nil {
		src = *it.Source
	}
	blob, err := tx.CommitBlob(w)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO registry_files (root, path, digest, size, lang, summary,
		summary_stale, summary_updated_at, digest_at_summary, summary_blob, lines_added, lines_removed, fp, fp_at, summary_by,
		summary_model, summary_endpoint, summary_prompt)
		VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, 0, 0, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(root, path) DO UPDATE SET digest = excluded.digest, size = excluded.size,
		fp = excluded.fp, fp_at = excluded.fp_at,
		summary = excluded.summary, summary_stale = 0, summary_updated_at = excluded.summary_updated_at,
		digest_at_summary = excluded.digest_at_summary, summary_blob = excluded.summary_blob,
		lines_added = 0, lines_removed = 0, summary_by = excluded.summary_by,
		summary_model = excluded.summary_model, summary_endpoint = excluded.summary_endpoint,
		summary_prompt = excluded.summary_prompt`,
		s.WS.Root, it.Path, d.Digest.String(), d.Info().Size, language(it.Path), it.Summary,
		tx.Now.UnixNano(), d.Digest.String(), blob.Digest.String(), d.FP.String(), d.Recorded, it.By,
		src.Model, src.Endpoint, src.Prompt)
	if err != nil {
		return fmt.Errorf("summarize %s: %w", it.Path, err)
	}
	return nil
}
