package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/freshctx/freshctx/internal/termsafe"
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
	// Exiting says that the process ends when Main returns: the store is
	// left for the exit to end (store.Store.Leave), not closed. Tests that
	// run Main again and again in one process leave it false.
	Exiting bool

	content io.Writer // see Content
}

// Content is where exact content (a file read, an artifact, raw output)
// goes: Out itself unless a person reads Out on a terminal, where it is
// cleaned of control sequences like everything else.
func (s IO) Content() io.Writer {
	if s.content != nil {
		return s.content
	}
	return s.Out
}

// terminalSafe wraps w in a cleaning writer when a person reads it on a
// terminal; flush writes what it held back.
func terminalSafe(w io.Writer, terminal bool) (out io.Writer, flush func() error) {
	if !terminal {
		return w, func() error { return nil }
	}
	tw := termsafe.NewWriter(w)
	return tw, tw.Flush
}

// System returns the process's standard streams, for a Main the process
// exits after.
func System() (IO, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return IO{}, err
	}
	return IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, ErrIsTerminal: isTerminal(os.Stderr),
		OutIsTerminal: isTerminal(os.Stdout), Env: os.Environ(), Cwd: cwd, Exiting: true}, nil
}

// open opens a file named by a flag, relative to the working directory;
// "-" is standard input.
func (a *app) open(flag, name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(a.io.In), nil
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(a.io.Cwd, name)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return f, nil
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
