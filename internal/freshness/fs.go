package freshness

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
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
func (OSFS) Open(name string) (io.ReadCloser, error) {
	f, err := openFile(name)
	if err != nil {
		return nil, err // no typed nil in the interface
	}
	return f, nil
}

// ReadDir implements FS: os.ReadDir's answer, sorted by name, with the
// folder opened as OpenFolder opens it.
func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := OpenFolder(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	list, err := f.ReadDir(-1)
	slices.SortFunc(list, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return list, err
}

// ErrNotRegular is the error of a path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// notRegular says what a path is instead of a regular file.
func notRegular(mode fs.FileMode) error {
	return fmt.Errorf("%w: %s", ErrNotRegular, kindOf(mode))
}

// kindOf names what a file mode is: "a directory", "a named pipe", …
func kindOf(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a device"
	case mode.IsRegular():
		return "a regular file"
	}
	return "an irregular file"
}
