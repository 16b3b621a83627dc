//go:build linux

package freshness

import (
	"time"

	"golang.org/x/sys/unix"
)

// FileClock returns the time the kernel would stamp a file written now: its
// coarse real-time clock, which lags time.Now by up to one scheduler tick.
// A file written after this call has an mtime and ctime at or after it.
func FileClock() time.Time {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &ts); err != nil {
		return time.Now().Add(-fileClockSlack)
	}
	return time.Unix(ts.Unix())
}
