//go:build unix

package integrate

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives f the owner and group of the file it replaces, where the
// process may (root may; anyone else owns what they write).
func keepOwner(f *os.File, was fs.FileInfo) {
	if st, ok := was.Sys().(*syscall.Stat_t); ok {
		f.Chown(int(st.Uid), int(st.Gid))
	}
}
