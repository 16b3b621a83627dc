package records

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
)

// CaptureRequest records text read from Input, as `capture` does with stdin.
type CaptureRequest struct {
	Options
	Input io.Reader
	// Files are referenced explicitly (--file), besides those found in the text.
	Files []string
	// ExitCode, when set, is the status of the command whose output this
	// is (a pipe's first command); else the record has none.
	ExitCode *int
	// OpenStore opens the store beside the reading of Input, as
	// RunRequest.OpenStore does beside a command.
	OpenStore func(context.Context) (*store.Store, time.Duration, error)
}

// canWait reports input that nothing upstream writes into: a regular file
// (`capture < test.log`). Reading it more slowly holds nobody back.
func canWait(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

// Capture reads all of Input into a record whose exit code is the one
// given, else null.
func (s *Service) Capture(ctx context.Context, req CaptureRequest) (*Record, error) {
	var explicit []string
	for _, f := range req.Files {
		rel, err := s.WS.Rel(f, s.Cwd)
		if err != nil {
			return nil, fmt.Errorf("--file: %w", err)
		}
		explicit = append(explicit, rel)
	}
	if req.OpenStore != nil {
		s.openBeside(context.WithoutCancel(ctx), req.OpenStore)
		defer s.storeOpened() // nothing started here is left running
	}
	c, err := s.startCapture(req.Options, nil)
	if err != nil {
		return nil, err
	}
	defer c.discard()
	defer s.waitWarm() // nothing started here writes into .git once Capture returns
	c.spool.patient = canWait(req.Input)
	start, since := s.now(), freshness.FileClock()
	_, copyErr := io.Copy(c.spool.writer(Stdout), req.Input)
	duration := s.now().Sub(start) // until the input ended, not until it was analysed
	if copyErr != nil {
		c.wait()
		return nil, fmt.Errorf("read input: %w", copyErr)
	}
	c.status = s.statusNow(context.WithoutCancel(ctx))
	return s.finish(ctx, c, recordMeta{kind: "capture", start: start, since: since, duration: duration, files: explicit,
		exitCode: req.ExitCode})
}
