package cli

import (
	"io"
	"os"
)

// IO is where a command reads and writes; tests swap it.
type IO struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// ErrIsTerminal says whether progress may be drawn on Err.
	ErrIsTerminal bool
	// OutIsTerminal says whether a person reads Out.
	OutIsTerminal bool
	// Env is the environment commands run with.
	Env []string
	// Cwd is the working directory.
	Cwd string
}

// System returns the process's standard streams.
func System() (IO, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return IO{}, err
	}
	return IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, ErrIsTerminal: isTerminal(os.Stderr),
		OutIsTerminal: isTerminal(os.Stdout), Env: os.Environ(), Cwd: cwd}, nil
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
