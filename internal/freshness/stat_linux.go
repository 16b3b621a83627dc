//go:build linux

package freshness

import (
	"io/fs"
	"syscall"

	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

func fromOS(fi fs.FileInfo) FileInfo {
	out := FileInfo{Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), Mode: fi.Mode()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		out.Ctime = st.Ctim.Sec*1e9 + st.Ctim.Nsec
		out.Inode = st.Ino
		out.Dev = uint64(st.Dev)
	}
	return out
}

// lstat and stat go straight to the system call: a registry scan makes one
// per file, and os.Lstat's FileInfo is garbage here. The result equals
// fromOS of os.Lstat (os.Stat).
func lstat(name string) (FileInfo, error) {
	var st unix.Stat_t
	if err := ignoringEINTR(func() error { return unix.Lstat(name, &st) }); err != nil {
		return FileInfo{}, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return fromStat(&st), nil
}

func stat(name string) (FileInfo, error) {
	var st unix.Stat_t
	if err := ignoringEINTR(func() error { return unix.Stat(name, &st) }); err != nil {
		return FileInfo{}, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return fromStat(&st), nil
}

func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}

// fromStat converts as package os does (fillFileStatFromSys).
func fromStat(st *unix.Stat_t) FileInfo {
	mode := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if st.Mode&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if st.Mode&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if st.Mode&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return FileInfo{Dev: uint64(st.Dev), Inode: st.Ino, Size: st.Size,
		ModTime: st.Mtim.Sec*1e9 + st.Mtim.Nsec, Ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec, Mode: mode}
}

// lstatIn is lstat of name in the open folder dir, by fstatat relative to
// it: the kernel does not walk the folder's path again for every entry,
// which a walk of a tree pays once per file.
func lstatIn(dir *os.File, name string) (FileInfo, error) {
	var st unix.Stat_t
	fd := int(dir.Fd())
	if err := ignoringEINTR(func() error { return unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return FileInfo{}, &fs.PathError{Op: "lstat", Path: filepath.Join(dir.Name(), name), Err: err}
	}
	return fromStat(&st), nil
}
