package freshness

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// Fingerprint is freshctx's own stat of one path: the file the path reaches
// (following symlinks) and, when the path itself is a symlink, the link and
// its target string. Two equal fingerprints name the same inode on the same
// device with the same size, mtime, ctime and mode: unless the file was
// written within one timestamp tick of the fingerprint (see Settled), its
// bytes are the same.
type Fingerprint struct {
	File   FileInfo // stat of what the path reaches
	Link   FileInfo // lstat of the path when it is a symlink, else zero
	Target string   // the symlink's target string
}

// IsZero reports whether no fingerprint was taken.
func (f Fingerprint) IsZero() bool { return f == Fingerprint{} }

// IsLink reports whether the path itself is a symlink.
func (f Fingerprint) IsLink() bool { return f.Link.IsLink() }

// Settled reports whether a fingerprint taken at recorded (unix ns) can
// vouch for the bytes: every timestamp in it lies at least window before
// recorded. A file written later within the same timestamp tick could keep
// size, mtime and ctime — git's racy-git problem — so an unsettled
// fingerprint is never evidence; the file is hashed instead.
func (f Fingerprint) Settled(recorded int64, window time.Duration) bool {
	limit := recorded - window.Nanoseconds()
	ok := func(fi FileInfo) bool { return fi.ModTime < limit && fi.Ctime < limit }
	return !f.IsZero() && ok(f.File) && (!f.IsLink() || ok(f.Link))
}

// fileClockSlack is how far a file's timestamp may lag time.Now where the
// kernel's own clock cannot be read: up to one scheduler tick (at most
// 10 ms), with a margin.
const fileClockSlack = 50 * time.Millisecond

// ChangedSince reports whether the path was modified (mtime or ctime) at or
// after t, a time read with FileClock. On a file system with whole-second
// timestamps a write in the second t falls in counts too.
func (f Fingerprint) ChangedSince(t time.Time) bool {
	changed := func(fi FileInfo) bool { return atOrAfter(fi.ModTime, t) || atOrAfter(fi.Ctime, t) }
	return changed(f.File) || (f.IsLink() && changed(f.Link))
}

// StampedSince reports whether a file time (ChangeTime) may be that of a
// change at or after t, a time read with FileClock: in t's timer tick or
// later, or, for a time of whole seconds (a file system that keeps no
// more), in t's second or later.
func StampedSince(at, t time.Time) bool { return atOrAfter(at.UnixNano(), t) }

func atOrAfter(ts int64, t time.Time) bool {
	return ts >= t.UnixNano() || (ts%1e9 == 0 && ts >= t.Truncate(time.Second).UnixNano())
}

// String encodes the fingerprint for storage; "" for the zero one.
func (f Fingerprint) String() string { return string(f.AppendTo(nil)) }

// AppendTo appends String's encoding to b: a scan of many paths compares
// encodings without allocating.
func (f Fingerprint) AppendTo(b []byte) []byte {
	if f.IsZero() {
		return b
	}
	b = appendInfo(b, f.File)
	if f.IsLink() {
		b = append(b, '|')
		b = appendInfo(b, f.Link)
		b = append(b, '|')
		b = append(b, f.Target...)
	}
	return b
}

// ParseFingerprint reads what String wrote; "" is the zero fingerprint.
func ParseFingerprint(s string) (Fingerprint, error) {
	var f Fingerprint
	if s == "" {
		return f, nil
	}
	parts := strings.SplitN(s, "|", 3)
	var err error
	if f.File, err = decodeInfo(parts[0]); err != nil {
		return Fingerprint{}, fmt.Errorf("fingerprint %q: %w", s, err)
	}
	if len(parts) == 3 {
		if f.Link, err = decodeInfo(parts[1]); err != nil {
			return Fingerprint{}, fmt.Errorf("fingerprint %q: %w", s, err)
		}
		f.Target = parts[2]
	} else if len(parts) != 1 {
		return Fingerprint{}, fmt.Errorf("fingerprint %q: malformed", s)
	}
	return f, nil
}

func appendInfo(b []byte, fi FileInfo) []byte {
	b = strconv.AppendUint(b, fi.Dev, 10)
	b = append(b, ':')
	b = strconv.AppendUint(b, fi.Inode, 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, fi.Size, 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, fi.ModTime, 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, fi.Ctime, 10)
	b = append(b, ':')
	return strconv.AppendUint(b, uint64(uint32(fi.Mode)), 10)
}

func decodeInfo(s string) (FileInfo, error) {
	f := strings.Split(s, ":")
	if len(f) != 6 {
		return FileInfo{}, fmt.Errorf("want 6 fields, have %d", len(f))
	}
	var n [6]uint64
	for i, x := range f {
		v, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			u, uerr := strconv.ParseUint(x, 10, 64)
			if uerr != nil {
				return FileInfo{}, err
			}
			v = int64(u)
		}
		n[i] = uint64(v)
	}
	return FileInfo{Dev: n[0], Inode: n[1], Size: int64(n[2]), ModTime: int64(n[3]), Ctime: int64(n[4]),
		Mode: fs.FileMode(uint32(n[5]))}, nil
}
