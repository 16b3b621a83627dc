//go:build linux

package freshness

import (
	"path"

	"golang.org/x/sys/unix"
)

// fingerprintBatch fingerprints root-relative paths that share directories
// (sorted paths do): each directory is opened once and its files are
// lstat'ed relative to it, sparing the kernel a walk of the whole path per
// file. A symlink, or any path the fast way cannot take, goes the usual way.
func (s *Snapshot) fingerprintBatch(rels []string, out []Fingerprint, errs []error) {
	if _, ok := s.opt.FS.(OSFS); !ok || s.rootSlash == "" {
		s.fingerprintEach(rels, out, errs)
		return
	}
	dirFD, dirName := -1, "\x00"
	defer func() {
		if dirFD >= 0 {
			unix.Close(dirFD)
		}
	}()
	var st unix.Stat_t
	for i, rel := range rels {
		dir, base := path.Split(rel)
		if dir != dirName {
			if dirFD >= 0 {
				unix.Close(dirFD)
			}
			dirName = dir
			dirFD, _ = unix.Open(s.rootSlash+dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		}
		if dirFD < 0 || base == "" {
			out[i], errs[i] = s.Fingerprint(rel)
			continue
		}
		err := ignoringEINTR(func() error { return unix.Fstatat(dirFD, base, &st, unix.AT_SYMLINK_NOFOLLOW) })
		switch {
		case err == unix.ENOENT || err == unix.ENOTDIR:
			out[i], errs[i] = Fingerprint{}, &pathErr{rel, err}
		case err != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK:
			out[i], errs[i] = s.Fingerprint(rel)
		default:
			out[i], errs[i] = Fingerprint{File: fromStat(&st)}, nil
		}
	}
}
