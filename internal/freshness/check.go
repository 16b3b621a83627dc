package freshness

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"
)

// MtimeTolerance is tier 3's margin: an unreadable file modified more than
// this after capture is stale.
const MtimeTolerance = time.Second

// Check labels every file of the stamp against the snapshot and aggregates
// the worst label; a stamp with no files is no_refs. Files the git tier
// decides cost nothing more; the stat cache of the rest is read in one query.
func (s *Snapshot) Check(ctx context.Context, st Stamp) (Result, error) {
	if len(st.Files) == 0 {
		return Result{Label: NoRefs, Files: []FileResult{}}, nil
	}
	res := Result{Files: make([]FileResult, len(st.Files))}
	if s.status != nil && st.Git.Tree != "" && st.Git.Head != s.status.Head {
		if _, err := s.Tree(ctx); err != nil {
			return Result{}, err
		}
	}
	var rest []string
	for i, f := range st.Files {
		res.Files[i].Path = f.Path
		switch {
		case !s.rootExists:
			res.Files[i].Label, res.Files[i].Reason = Unknown, "workspace root is gone"
		default:
			if l, reason, ok := s.gitTier(st, f); ok {
				res.Files[i].Label, res.Files[i].Reason = l, reason
			} else {
				rest = append(rest, f.Path)
			}
		}
	}
	if err := s.loadCache(ctx, rest); err != nil {
		return Result{}, err
	}
	labels := make([]Label, len(st.Files))
	for i, f := range st.Files {
		if res.Files[i].Label == "" {
			res.Files[i].Label, res.Files[i].Reason = s.checkFile(st, f)
		}
		labels[i] = res.Files[i].Label
	}
	res.Label = Worst(labels...)
	return res, nil
}

// checkFile runs the content and mtime tiers on a file git could not decide.
func (s *Snapshot) checkFile(st Stamp, f FileStamp) (Label, string) {
	o := s.observe(f.Path, false)
	if o.statErr != nil {
		return s.statFailed(f, o.statErr)
	}
	switch {
	case o.info.IsDir() && f.IsDir:
		return Fresh, "still a directory"
	case o.info.IsDir() && f.Existed:
		return StaleDeleted, "replaced by a directory"
	case !f.Existed:
		return StaleChanged, "created since capture"
	case f.IsDir:
		return StaleChanged, "directory replaced by a file"
	}
	if !f.Digest.IsZero() {
		if l, reason, ok := s.contentTier(f, o); ok {
			return l, reason
		}
	}
	return s.mtimeTier(st, f, s.seen[f.Path])
}

// gitTier answers from git alone when that is sound.
func (s *Snapshot) gitTier(st Stamp, f FileStamp) (Label, string, bool) {
	if s.status == nil {
		return "", "", false
	}
	if f.Existed && s.status.Deleted(f.Path) {
		return StaleDeleted, "deleted (git status)", true
	}
	if f.GitClean && st.Git.Head != "" && s.status.Head == st.Git.Head && s.status.Clean(f.Path) {
		return Fresh, "clean in git, HEAD unchanged", true
	}
	// Another commit with the identical tree (a merge, an amended message):
	// a file clean then and now has the same content.
	if f.GitClean && st.Git.Tree != "" && s.tree == st.Git.Tree && s.status.Clean(f.Path) {
		return Fresh, "clean in git, tree unchanged", true
	}
	return "", "", false
}

// contentTier compares digests; ok is false when the file cannot be read.
func (s *Snapshot) contentTier(f FileStamp, o observation) (Label, string, bool) {
	if o.info.Size != f.Size {
		return StaleChanged, fmt.Sprintf("content changed (%d → %d bytes)", f.Size, o.info.Size), true
	}
	o = s.observe(f.Path, true)
	if o.readErr != nil {
		return "", "", false
	}
	if o.digest != f.Digest {
		return StaleChanged, "content changed", true
	}
	if o.info.ModTime != f.ModTime {
		return Fresh, "content unchanged (touched)", true
	}
	return Fresh, "content unchanged", true
}

// mtimeTier judges a file whose content cannot be compared.
func (s *Snapshot) mtimeTier(st Stamp, f FileStamp, o observation) (Label, string) {
	why := "content not compared"
	if o.readErr != nil {
		why = "unreadable: " + o.readErr.Error()
	} else if f.Digest.IsZero() {
		why = "not hashed at capture"
	}
	switch {
	case o.info.Size != f.Size:
		return StaleChanged, fmt.Sprintf("size changed (%d → %d bytes); %s", f.Size, o.info.Size, why)
	case o.info.ModTime > st.At.Add(MtimeTolerance).UnixNano():
		return StaleChanged, "modified after capture; " + why
	case o.info.ModTime == f.ModTime:
		return Fresh, "size and mtime unchanged; " + why
	default:
		return Unknown, "mtime differs but not newer than capture; " + why
	}
}

func (s *Snapshot) statFailed(f FileStamp, err error) (Label, string) {
	if isNotExist(err) || isNotDir(err) {
		if !f.Existed {
			return Fresh, "still absent"
		}
		return StaleDeleted, "deleted"
	}
	return Unknown, "cannot stat: " + err.Error()
}

func isNotDir(err error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno) && errno == syscall.ENOTDIR
}
