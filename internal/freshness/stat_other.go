//go:build !linux && !darwin

package freshness

import "io/fs"

func fromOS(fi fs.FileInfo) FileInfo {
	return FileInfo{Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), Mode: fi.Mode()}
}
