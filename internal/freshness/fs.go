package freshness

import (
	"io"
	"io/fs"
	"os"
)

// FileInfo is the subset of a stat the stat cache compares.
type FileInfo struct {
	Size    int64
	ModTime int64 // unix ns
	Ctime   int64 // unix ns, 0 where the platform has none
	Inode   uint64
	Mode    fs.FileMode
}

// IsDir reports whether the path is a directory.
func (fi FileInfo) IsDir() bool { return fi.Mode.IsDir() }

// FS is the file system a Snapshot reads. Paths are absolute OS paths. It
// must be safe for concurrent use: DigestMany reads from several goroutines.
type FS interface {
	// Stat follows symlinks.
	Stat(name string) (FileInfo, error)
	Open(name string) (io.ReadCloser, error)
}

// OSFS is the real file system.
type OSFS struct{}

// Stat implements FS.
func (OSFS) Stat(name string) (FileInfo, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return FileInfo{}, err
	}
	return fromOS(fi), nil
}

// Open implements FS.
func (OSFS) Open(name string) (io.ReadCloser, error) { return os.Open(name) }
