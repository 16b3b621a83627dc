//go:build unix

package freshness

import (
	"os"

	"golang.org/x/sys/unix"
)

// OpenFolder opens the folder at abs to read its entries, and openFile the
// file at name to read it. os.Open would try to add the descriptor to the
// runtime's poller, which refuses a folder or a regular file, and set and
// clear its non-blocking flag on the way: four fcntl and an epoll_ctl for
// each, a fifth of a walk's time in a tree of small folders. os.NewFile of
// a blocking descriptor asks one fcntl and no poller.
func OpenFolder(abs string) (*os.File, error) {
	return openBlocking(abs, unix.O_DIRECTORY)
}

func openFile(name string) (*os.File, error) { return openBlocking(name, 0) }

func openBlocking(name string, flags int) (*os.File, error) {
	for {
		fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC|flags, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), name), nil
	}
}
