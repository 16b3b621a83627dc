//go:build unix

package workspace

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the file at path into memory to be read, and returns a
// function that unmaps it: the pages of a large index are read where they
// lie, in the page cache, rather than copied into new ones.
func mapFile(path string) ([]byte, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() == 0 || int64(int(fi.Size())) != fi.Size() {
		return nil, func() {}, nil
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { unix.Munmap(data) }, nil
}
