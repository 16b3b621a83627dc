//go:build !linux

package freshness

import (
	"os"
	"path/filepath"
)

func lstat(name string) (FileInfo, error) {
	fi, err := os.Lstat(name)
	if err != nil {
		return FileInfo{}, err
	}
	return fromOS(fi), nil
}

func stat(name string) (FileInfo, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return FileInfo{}, err
	}
	return fromOS(fi), nil
}

func lstatIn(dir *os.File, name string) (FileInfo, error) {
	return lstat(filepath.Join(dir.Name(), name))
}
