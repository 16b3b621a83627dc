//go:build linux

package freshness

import (
	"io/fs"
	"syscall"
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
