package freshness

import (
	"io/fs"
	"os"
	"time"
)

// ChangeTime is when a file last changed, as its stat tells: the later of
// its mtime and its ctime (where the system has one).
func ChangeTime(fi fs.FileInfo) time.Time {
	return fromOS(fi).Changed()
}

// LstatIn is the FileInfo of name in the open folder dir, not following a
// symlink: os.Lstat of dir's path joined with name, for less.
func LstatIn(dir *os.File, name string) (FileInfo, error) { return lstatIn(dir, name) }

// Changed is the later of the file's modification and change times, as
// ChangeTime is of an fs.FileInfo.
func (fi FileInfo) Changed() time.Time { return time.Unix(0, max(fi.ModTime, fi.Ctime)) }
