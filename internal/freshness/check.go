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
// the worst label; a stamp with no files is no_refs. It runs no git: a file
// whose fingerprint equals its settled stamp is fresh after one lstat, any
// other file is hashed (through the stat cache) and compared.
func (s *Snapshot) Check(ctx context.Context, st Stamp) (Result, error) {
	res, err := s.CheckMany(ctx, []Stamp{st})
	if err != nil {
		return Result{}, err
	}
	return res[0], nil
}

// CheckMany is Check of every stamp, with the stat-cache entries of the
// files their fingerprints cannot decide read in one query for all of them
// (a query per stamp costs more than the checking when stamps are many and
// small, as an artifact's slices are).
func (s *Snapshot) CheckMany(ctx context.Context, sts []Stamp) ([]Result, error) {
	out := make([]Result, len(sts))
	s.prefetch(sts)
	var rest []string
	for i, st := range sts {
		out[i], rest = s.prejudge(st, rest)
	}
	if err := s.loadCache(ctx, rest); err != nil {
		return nil, err
	}
	for i, st := range sts {
		if len(st.Files) == 0 {
			continue
		}
		labels := make([]Label, len(st.Files))
		for j, f := range st.Files {
			r := &out[i].Files[j]
			if r.Label == "" {
				r.Label, r.Reason = s.checkFile(ctx, st, f)
			}
			labels[j] = r.Label
		}
		out[i].Label = Worst(labels...)
	}
	return out, nil
}

// prejudge decides what of the stamp needs no bytes and appends the paths
// of the rest to rest.
func (s *Snapshot) prejudge(st Stamp, rest []string) (Result, []string) {
	if len(st.Files) == 0 {
		return Result{Label: NoRefs, Files: []FileResult{}}, rest
	}
	res := Result{Files: make([]FileResult, len(st.Files))}
	for i, f := range st.Files {
		res.Files[i].Path = f.Path
		if !s.rootExists {
			res.Files[i].Label, res.Files[i].Reason = Unknown, "workspace root is gone"
			continue
		}
		if l, reason, ok := s.quick(st, f); ok {
			res.Files[i].Label, res.Files[i].Reason = l, reason
			continue
		}
		rest = append(rest, f.Path)
	}
	return res, rest
}

// quick decides a file from its fingerprint alone, when that is evidence.
func (s *Snapshot) quick(st Stamp, f FileStamp) (Label, string, bool) {
	o := s.observe(f.Path, false)
	if o.statErr != nil {
		l, why := s.statFailed(f, o.statErr)
		return l, why, true
	}
	if f.Notes != 0 || !f.Existed || f.IsDir || o.fp.File.IsDir() {
		return "", "", false
	}
	if f.FP == o.fp && f.FP.Settled(st.stampedNS(), s.opt.RacyWindow) {
		return Fresh, "unchanged (same inode, size, mtime and ctime as at capture)", true
	}
	return "", "", false
}

// checkFile decides a file its fingerprint could not.
func (s *Snapshot) checkFile(ctx context.Context, st Stamp, f FileStamp) (Label, string) {
	o := s.observe(f.Path, false)
	isDir := o.fp.File.IsDir()
	switch {
	case isDir && f.IsDir:
		return s.checkDir(ctx, f, o)
	case isDir && f.Existed:
		return StaleDeleted, "replaced by a directory"
	case !f.Existed:
		return StaleChanged, "created since capture"
	case f.IsDir:
		return StaleChanged, "directory replaced by a file"
	}
	if why, ok := noted(f.Notes); ok {
		return Unknown, why
	}
	if !f.Digest.IsZero() {
		if o.fp.File.Mode.IsRegular() && o.fp.File.Size != f.Size {
			return StaleChanged, fmt.Sprintf("content changed (%d → %d bytes)", f.Size, o.fp.File.Size)
		}
		o = s.observe(f.Path, true)
		if o.readErr == nil {
			if o.digest != f.Digest {
				return StaleChanged, "content changed"
			}
			if o.fp.File.ModTime != f.ModTime {
				return Fresh, "content unchanged (touched)"
			}
			return Fresh, "content unchanged"
		}
	}
	return s.mtimeTier(st, f, o)
}

// noteReasons say why a stamp with a note is unknown, first note first.
var noteReasons = []struct {
	note Note
	why  string
}{
	{NoteOutsideRoot, "links outside the workspace root: not read"},
	{NoteChangedDuringRun, "changed while the command ran: which content the output saw is not known"},
	{NoteUnsettled, "was changing while it was stamped"},
	{NoteNotStamped, "not stamped (over the file limit)"},
	{NoteLinkedFolder, "holds a link to a folder outside it: the files there are not compared"},
}

// noted is the reason of the first note in n, if it has one.
func noted(n Note) (string, bool) {
	for _, r := range noteReasons {
		if n&r.note != 0 {
			return r.why, true
		}
	}
	return "", false
}

// checkDir judges a directory that is still one by its digest: fresh only
// when the files under it are the same files with the same bytes.
func (s *Snapshot) checkDir(ctx context.Context, f FileStamp, o *observation) (Label, string) {
	if f.Notes&NoteNotStamped != 0 {
		return Unknown, fmt.Sprintf("holds more than %d entries: not compared", MaxDirEntries)
	}
	if why, ok := noted(f.Notes); ok {
		return Unknown, why
	}
	if f.Digest.IsZero() {
		return Unknown, "a directory whose files were not compared at capture"
	}
	s.observeDir(ctx, f.Path, o)
	switch {
	case o.readErr != nil:
		return Unknown, "the files in it cannot be compared: " + o.readErr.Error()
	case o.digest != f.Digest:
		return StaleChanged, "files in it were added, removed or changed"
	}
	return Fresh, "the same files with the same bytes as at capture"
}

// mtimeTier judges a file whose content cannot be compared: it can prove a
// change, never the absence of one.
func (s *Snapshot) mtimeTier(st Stamp, f FileStamp, o *observation) (Label, string) {
	why := "content not compared"
	if o.readErr != nil {
		why = "unreadable: " + o.readErr.Error()
	} else if f.Digest.IsZero() {
		why = "not hashed at capture"
	}
	switch {
	case o.fp.File.Mode.IsRegular() && o.fp.File.Size != f.Size:
		return StaleChanged, fmt.Sprintf("size changed (%d → %d bytes); %s", f.Size, o.fp.File.Size, why)
	case o.fp.File.ModTime > st.At.Add(MtimeTolerance).UnixNano():
		return StaleChanged, "modified after capture; " + why
	default:
		return Unknown, "may have changed (stat differs); " + why
	}
}

func (s *Snapshot) statFailed(f FileStamp, err error) (Label, string) {
	if Absent(err) {
		switch {
		case f.Existed:
			return StaleDeleted, "deleted"
		case f.Notes&NoteNotStamped != 0: // nothing says what was there
			return Unknown, "not stamped (over the file limit)"
		}
		return Fresh, "still absent"
	}
	return Unknown, "cannot stat: " + err.Error()
}

// Absent reports whether err says a path is not there: it does not exist,
// or a folder on its way is a file.
func Absent(err error) bool { return isNotExist(err) || isNotDir(err) }

func isNotDir(err error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno) && errno == syscall.ENOTDIR
}
