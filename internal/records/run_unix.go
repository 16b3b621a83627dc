//go:build unix

package records

import (
	"os"
	"syscall"
	"time"
)

// ownGroup starts a command in a process group of its own, which a
// cancellation ends whole.
func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// terminate ends a cancelled command: SIGTERM to it (and its group), then
// SIGKILL if it is still there after killGrace.
func terminate(p *os.Process, group bool) {
	signal := func(sig syscall.Signal) {
		if group {
			syscall.Kill(-p.Pid, sig)
		} else {
			p.Signal(sig)
		}
	}
	signal(syscall.SIGTERM)
	time.AfterFunc(killGrace, func() { signal(syscall.SIGKILL) })
}
