//go:build unix

package teamsync

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in a session of its own: it outlives the command that
// started it, and the terminal's signals do not reach it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
