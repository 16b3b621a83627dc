//go:build !linux

package freshness

import "time"

// FileClock returns a time no later than the one the kernel would stamp on
// a file written now: the clock, less a scheduler tick's worth of slack.
func FileClock() time.Time { return time.Now().Add(-fileClockSlack) }
