//go:build !linux

package freshness

import "os"

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
