//go:build !unix

package teamsync

import "os/exec"

func detach(*exec.Cmd) {}
