package freshness

import (
	"io/fs"
	"time"
)

// ChangeTime is when a file last changed, as its stat tells: the later of
// its mtime and its ctime (where the system has one).
func ChangeTime(fi fs.FileInfo) time.Time {
	st := fromOS(fi)
	return time.Unix(0, max(st.ModTime, st.Ctime))
}
