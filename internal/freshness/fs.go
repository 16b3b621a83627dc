package freshness

import (
	"io"
	"io/fs"
	"os"
)

// FileInfo is one stat of a path, as the fingerprint compares it.
type FileInfo struct {
	Dev     uint64
	Inode   uint64
	Size    int64
	ModTime int64 // unix ns
	Ctime   int64 // unix ns, 0 where the platform has none
	Mode    fs.FileMode
}

// IsDir reports whether the path is a directory.
func (fi FileInfo) IsDir() bool { return fi.Mode.IsDir() }

// IsLink reports whether the path is a symbolic link (an lstat of it).
func (fi FileInfo) IsLink() bool { return fi.Mode&fs.ModeSymlink != 0 }

// FS is the file system a Snapshot reads. Paths are absolute OS paths. It
// must be safe for concurrent use: DigestMany reads from several goroutines.
type FS interface {
	// Stat follows symlinks.
	Stat(name string) (FileInfo, error)
	// Lstat does not follow a symlink in the last element.
	Lstat(name string) (FileInfo, error)
	Readlink(name string) (string, error)
	Open(name string) (io.ReadCloser, error)
	// ReadDir lists a directory in name order, its entries' types as
	// lstat sees them.
	ReadDir(name string) ([]fs.DirEntry, error)
}

// OSFS is the real file system.
type OSFS struct{}

// Stat implements FS.
func (OSFS) Stat(name string) (FileInfo, error) { return stat(name) }

// Lstat implements FS.
func (OSFS) Lstat(name string) (FileInfo, error) { return lstat(name) }

// Readlink implements FS.
func (OSFS) Readlink(name string) (string, error) { return os.Readlink(name) }

// Open implements FS.
func (OSFS) Open(name string) (io.ReadCloser, error) { return os.Open(name) }

// ReadDir implements FS.
func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
