//go:build linux

package freshness

import (
	"path"

	"golang.org/x/sys/unix"
)

// lstatBatch lstat's root-relative paths that share directories (sorted
// paths do), each relative to its directory, opened once: the kernel walks
// one name per file, not the whole path. seen gets each path's index and
// what lstat said; fast is false where the path could not be taken this
// way (its directory could not be opened, or it is the root), and the
// caller asks again the usual way.
func lstatBatch(rootSlash string, rels []string, seen func(i int, st *unix.Stat_t, err error, fast bool)) {
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
			dirFD, _ = unix.Open(rootSlash+dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		}
		if dirFD < 0 || base == "" {
			seen(i, nil, nil, false)
			continue
		}
		err := ignoringEINTR(func() error { return unix.Fstatat(dirFD, base, &st, unix.AT_SYMLINK_NOFOLLOW) })
		seen(i, &st, err, true)
	}
}

// fingerprintBatch fingerprints rels into out and errs with lstatBatch; a
// symlink, or any path the fast way cannot take, goes the usual way.
func fingerprintBatch(rootSlash string, rels []string, out []Fingerprint, errs []error) {
	lstatBatch(rootSlash, rels, func(i int, st *unix.Stat_t, err error, fast bool) {
		switch {
		case fast && (err == unix.ENOENT || err == unix.ENOTDIR):
			out[i], errs[i] = Fingerprint{}, &pathErr{rels[i], err}
		case !fast || err != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK:
			out[i], errs[i] = fingerprint(OSFS{}, rootSlash+rels[i])
		default:
			out[i], errs[i] = Fingerprint{File: fromStat(st)}, nil
		}
	})
}

// presentBatch says which of rels lstat finds, with lstatBatch.
func presentBatch(rootSlash string, rels []string, out []bool) {
	lstatBatch(rootSlash, rels, func(i int, _ *unix.Stat_t, err error, fast bool) {
		if !fast || (err != nil && err != unix.ENOENT && err != unix.ENOTDIR) {
			_, err = lstat(rootSlash + rels[i])
		}
		out[i] = err == nil
	})
}
