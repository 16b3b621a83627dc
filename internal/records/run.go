package records

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/freshctx/freshctx/internal/compress"
	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/tokens"
	"github.com/freshctx/freshctx/internal/workspace"
)

// Service runs, captures and reads records of one workspace.
type Service struct {
	WS *workspace.Workspace
	// Store is where records are kept. Run and Capture may be given a
	// store to open beside their work (RunRequest.OpenStore): it is set
	// then as it opens.
	Store *store.Store
	// StoreErr is why Store is nil: the store could not be opened. Run and
	// Capture still run and digest the command and return a record that
	// was not kept; every other method needs a store.
	StoreErr error
	// Cwd is the caller's working directory, absolute.
	Cwd string
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Retention: run and capture delete records older than this, at most
	// once an hour; 0 keeps everything.
	Retention time.Duration
	// RacyWindow overrides freshness.RacyWindow (tests on a file system with
	// a known timestamp granularity); 0 keeps the default.
	RacyWindow time.Duration
	// Progress, when set, is told when a read is about to make the token
	// counts of many records at once (Options.TokensLater).
	Progress io.Writer

	// opened is closed once the store Run opens beside its command
	// (RunRequest.OpenStore) is open or has failed: Store, StoreErr and
	// Retention are not to be read before.
	opened chan struct{}
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Options are common to run and capture.
type Options struct {
	Label     string
	Intent    compress.Intent
	MaxTokens int
	// Progress, when set, receives a status line about once a second.
	Progress io.Writer
	// Notify, when set, is called about once a second while the command
	// runs (an MCP client's progress notifications).
	Notify func(Progress)
	// Command is the command line as the user wrote it, shown and searched
	// instead of the argv that runs it (a shell line run as sh -c LINE).
	Command string
	// Inputs, when set, is the record's input scope (root-relative globs,
	// see package scope) instead of the one chosen from the command.
	Inputs []string
	// TokensLater says the caller does not show the record's token counts:
	// a record whose digest is its whole output, under 64 KiB, is then kept
	// with its counts not made (NotCounted), to be made from the kept
	// output when first asked for (Show, List, Stats). Loading the
	// tokenizer's vocabulary is most of the CPU of a run of a small command.
	TokensLater bool
}

// Progress is how far a running command has got.
type Progress struct {
	Elapsed time.Duration
	Lines   int64
	Bytes   int64
}

func (p Progress) String() string {
	return fmt.Sprintf("running %s · %d lines · %s captured", p.Elapsed.Round(time.Second), p.Lines, humanBytes(p.Bytes))
}

// RunRequest is one command to run.
type RunRequest struct {
	Options
	Argv  []string
	Stdin io.Reader
	Env   []string
	// GitStatus, when set, is the whole-tree git status the caller started
	// for this run just before it (the CLI starts it as it reads the
	// command line, so that it runs beside the store's opening too); Run
	// starts one itself when it is nil.
	GitStatus func() (*workspace.Status, error)
	// OwnGroup runs the command in its own process group, so that when ctx
	// is cancelled the command and everything it started are ended (and the
	// record of what ran so far is kept). Not for a command that may read
	// a terminal: a background group cannot.
	OwnGroup bool
	// OpenStore, when set, opens the store the record is kept in beside
	// the command instead of before it, and returns it with the records'
	// retention; the Service's Store is then nil until it has. Run starts
	// the command first and waits for the store where it needs it: a
	// stream's first output, a spill of the spool, the record's save. An
	// error is the Service's StoreErr, as one from opening it before: the
	// command still runs and its record says why it was not kept.
	OpenStore func(context.Context) (*store.Store, time.Duration, error)
}

// killGrace is how long a cancelled command has between SIGTERM and SIGKILL.
const killGrace = time.Second

// StartError means the command could not be started; Code is the shell's
// convention (127 not found, 126 not executable).
type StartError struct {
	Command string
	Code    int
	Err     error
}

func (e *StartError) Error() string {
	if e.Code == 127 {
		return fmt.Sprintf("command not found: %s", e.Command)
	}
	return fmt.Sprintf("cannot run %s: %v", e.Command, e.Err)
}

func (e *StartError) Unwrap() error { return e.Err }

// waitDelay is how long output pipes are drained after the command exits
// (a background child may keep them open).
const waitDelay = 2 * time.Second

// Run executes the command with the caller's environment, stdin and working
// directory, keeps both streams whole, and records the result. The record's
// ExitCode is the command's status (128+signal when it was killed).
func (s *Service) Run(ctx context.Context, req RunRequest) (*Record, error) {
	if len(req.Argv) == 0 {
		return nil, errors.New("run: no command given")
	}
	if req.OpenStore != nil {
		s.openBeside(context.WithoutCancel(ctx), req.OpenStore)
		defer s.storeOpened() // nothing started here is left running
	}
	// The git facts are read as the command starts, beside it: a command
	// that runs longer than one status pays nothing for them.
	status := req.GitStatus
	if status == nil {
		gitCtx, stopGit := context.WithCancel(context.WithoutCancel(ctx))
		defer func() {
			stopGit()
			s.waitWarm() // nothing started here writes into .git once Run returns
		}()
		status = s.statusNow(gitCtx)
	}
	c, err := s.startCapture(req.Options, req.Argv)
	if err != nil {
		return nil, err
	}
	defer c.discard()
	cmd := exec.Command(req.Argv[0], req.Argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = s.Cwd, req.Env, req.Stdin
	cmd.Stdout, cmd.Stderr = c.spool.writer(Stdout), c.spool.writer(Stderr)
	cmd.WaitDelay = waitDelay
	if req.OwnGroup {
		cmd.SysProcAttr = ownGroup()
	}
	start, since := s.now(), freshness.FileClock()
	if err := cmd.Start(); err != nil {
		c.wait()
		return nil, startError(req.Argv[0], err)
	}
	stopSignals := forwardSignals(cmd.Process)
	stopCancel := context.AfterFunc(ctx, func() { terminate(cmd.Process, req.OwnGroup) })
	waitErr := cmd.Wait()
	duration := s.now().Sub(start) // the command's own: its output may still be on its way through the analysis
	stopCancel()
	stopSignals()
	code, err := exitCode(cmd, waitErr)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", req.Argv[0], err)
	}
	c.status = status
	// A cancelled run is still recorded: what it printed until then.
	return s.finish(context.WithoutCancel(ctx), c, recordMeta{
		kind: "run", argv: req.Argv, exitCode: &code, start: start, since: since, duration: duration,
	})
}

func startError(name string, err error) error {
	code := 126
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		code = 127
	}
	return &StartError{Command: name, Code: code, Err: err}
}

func exitCode(cmd *exec.Cmd, err error) (int, error) {
	st := cmd.ProcessState
	if st == nil {
		return 0, err
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	var ee *exec.ExitError
	if err == nil || errors.As(err, &ee) || errors.Is(err, exec.ErrWaitDelay) {
		return st.ExitCode(), nil
	}
	return 0, err
}

// forwardSignals passes interrupts and terminations on to the command while
// freshctx stays alive to record what it printed.
func forwardSignals(p *os.Process) (stop func()) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-ch:
				p.Signal(sig)
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// capture is one output being recorded: a spool taking both streams as
// they are written, feeding two blob sinks, which feed one analysis.
type capture struct {
	opt      Options
	spool    *spool
	drained  chan error
	sinks    [2]*sink
	lines    chan *lineBatch
	spare    batches
	analysis *analysis
	done     chan struct{}
	bytes    atomic.Int64
	stopProg func()
	// status is the whole-tree git status started as the command started
	// (run) or as its input ended (capture), nil when none was started.
	status func() (*workspace.Status, error)
	// waited is set once wait has run; waitErr is what it returned.
	waited  bool
	waitErr error
}

// waitWarm waits for the repository id statusNow may have started finding
// (workspace.Git.WarmIdentity) to be kept.
func (s *Service) waitWarm() {
	if s.WS.Git != nil {
		s.WS.Git.WaitWarm()
	}
}

// openBeside opens the store with open in a goroutine of its own
// (RunRequest.OpenStore); storeOpened waits for it.
func (s *Service) openBeside(ctx context.Context, open func(context.Context) (*store.Store, time.Duration, error)) {
	opened := make(chan struct{})
	s.opened = opened
	go func() {
		defer close(opened)
		st, retention, err := open(ctx)
		if err != nil {
			s.StoreErr = err
			return
		}
		s.Store, s.Retention = st, retention
	}()
}

// storeOpened waits for the store Run opens beside its command, if it
// does.
func (s *Service) storeOpened() {
	if s.opened != nil {
		<-s.opened
	}
}

// statusNow starts the whole-tree git status the record's stamp needs (its
// branch, HEAD and dirty bit), so that it runs beside what comes next
// instead of after it: for run, the command itself; for capture, the
// analysis of the rest of the input. Nil outside git, and when there is no
// store to keep the record in (one still opening is expected to be).
func (s *Service) statusNow(ctx context.Context) func() (*workspace.Status, error) {
	if s.opened == nil && s.Store == nil {
		return nil
	}
	return StartGitStatus(ctx, s.WS)
}

// StartGitStatus starts the whole-tree git status a record takes its
// branch, HEAD and dirty bit from (Git.StartStatus), with the git folders
// read and a new commit's tree and id found beside it (Git.WarmIdentity),
// and returns how to wait for it; nil outside git. A caller
// that starts it before it opens the store hands it to Run
// (RunRequest.GitStatus).
func StartGitStatus(ctx context.Context, ws *workspace.Workspace) func() (*workspace.Status, error) {
	if ws.Git == nil {
		return nil
	}
	ws.Git.Prefetch(ctx)
	status := ws.Git.StartStatus(ctx)
	ws.Git.WarmIdentity(ctx) // a new commit's tree and id, beside the status
	return status
}

func (s *Service) startCapture(opt Options, argv []string) (*capture, error) {
	if opt.Intent == "" {
		opt.Intent = compress.Summary
	}
	// The redaction ruleset is not warmed: most outputs never hold a word
	// that needs it, and building it anyway cost every run 6 ms of CPU
	// (its rules are translated one by one as lines need them).
	c := &capture{opt: opt, lines: make(chan *lineBatch, linesAhead), spare: newBatches(), done: make(chan struct{})}
	for i := range c.sinks {
		// A store that cannot take the output does not stop the command:
		// the sink keeps the error, the analysis still reads every line.
		// The blob itself is created by the stream's first output
		// (sink.writeBlob): one that prints nothing has none.
		k := &sink{create: s.createBlob, stream: Stream(i), out: c.lines, spare: c.spare, progress: &c.bytes}
		if s.opened == nil {
			k.err = s.blobErr()
		}
		k.count.write = k.writeBlob
		c.sinks[i] = k
	}
	c.analysis = newAnalysis(argv, opt.Intent, s.WS.Root)
	c.spool, c.drained = newSpool(s.spoolDir), make(chan error, 1)
	go func() {
		// The tokenizer's vocabulary (30 ms of CPU) loads in the background
		// from the first output on; a command that prints nothing never
		// needs it, nor one whose counts are left for later (TokensLater)
		// until its output nears the size that is counted as it comes.
		var warm sync.Once
		c.drained <- c.spool.drain(func(st Stream, p []byte) {
			if !opt.TokensLater || c.bytes.Load()+int64(len(p)) >= preloadLater {
				warm.Do(tokens.Preload)
			}
			c.sinks[st].Write(p)
		})
	}()
	go func() {
		c.analysis.consume(c.lines, c.spare)
		close(c.done)
	}()
	c.stopProg = showProgress(opt, &c.bytes, &c.analysis.lines)
	return c, nil
}

// spoolDir is where output waiting for the analysis may spill: the blob
// folder (private to the user), else the system's temporary folder.
func (s *Service) spoolDir() string {
	s.storeOpened()
	if s.Store != nil {
		return s.Store.BlobDir()
	}
	return os.TempDir()
}

func (s *Service) createBlob() (*store.BlobWriter, error) {
	s.storeOpened()
	if err := s.blobErr(); err != nil {
		return nil, err
	}
	return s.Store.CreateBlob()
}

// blobErr is why no stream's output can be kept, where that is known
// before any output comes: there is no store. (A store that cannot take a
// blob says so when the first is made.)
func (s *Service) blobErr() error {
	if s.Store == nil {
		if s.StoreErr == nil {
			return errors.New("no store to keep the output in")
		}
		return s.StoreErr
	}
	return nil
}

// wait takes the rest of the spool, flushes the sinks and waits for the
// analysis to drain. Only its first call does anything.
func (c *capture) wait() error {
	if c.waited {
		return c.waitErr
	}
	c.waited = true
	c.waitErr = c.drain()
	return c.waitErr
}

func (c *capture) drain() error {
	c.spool.close()
	spoolErr := <-c.drained
	c.stopProg()
	for _, k := range c.sinks {
		k.flush()
	}
	close(c.lines)
	<-c.done
	if err := writtenAll(c.sinks[:]); err != nil {
		return err
	}
	return spoolErr
}

// writtenAll waits until every sink's output is written, and then returns
// the first write that failed: the blobs are then the caller's to keep or
// discard, which they were not while a stream after the failed one was
// still being written.
func writtenAll(sinks []*sink) error {
	for _, k := range sinks {
		k.count.written()
	}
	for _, k := range sinks {
		if k.err != nil {
			return fmt.Errorf("store %s: %w", k.stream, k.err)
		}
	}
	return nil
}

// finishBlobs finishes the streams' blobs (the compressor's last block,
// the file synced) on a goroutine of its own, beside the stamping of the
// files the output names, rather than in the transaction that saves the
// record, where the sync held every other writer of the store back. The
// func it returns waits for it (CommitBlob then takes what Finish said);
// it is called only once the blobs are the caller's (wait).
func (c *capture) finishBlobs() (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, k := range c.sinks {
			if k.blob != nil {
				k.blob.Finish() // its error, if any, is CommitBlob's to say
			}
		}
	}()
	return func() { <-done }
}

// discard drops the blobs of a capture that is not kept, once nothing
// writes them any more.
func (c *capture) discard() {
	c.wait()
	for _, k := range c.sinks {
		if k.blob != nil {
			k.blob.Discard()
		}
	}
}

// preloadLater is how much output a run whose counts may be left for later
// takes before the vocabulary is loaded: past 64 KiB a stream is counted
// as it comes.
const preloadLater = 32 << 10

// countLater reports whether the record's token counts are left for
// whoever first asks (Options.TokensLater): only when the caller allows it,
// no budget needs them, a store keeps the output to count from, and every
// stream's counter still holds all its text, so a count made later from
// the kept output is the one made now. An output kept whole has nothing
// to show its counts for; a digest of less than preloadLater has the
// vocabulary still unloaded, whose loading (25 ms of CPU) would be most of
// the run's own cost: its footer says the bytes instead
// (TestSmallRunsCountLater).
func (c *capture) countLater(stored, whole bool) bool {
	small := c.bytes.Load() < preloadLater
	return c.opt.TokensLater && (whole || small) && c.opt.MaxTokens <= 0 && stored &&
		c.sinks[Stdout].count.result().Held() && c.sinks[Stderr].count.result().Held()
}

func (c *capture) rawTokens() (int, bool) {
	n1, e1 := c.sinks[Stdout].count.result().Total()
	n2, e2 := c.sinks[Stderr].count.result().Total()
	return n1 + n2, e1 && e2
}

// showProgress prints a status line to w about once a second until stopped.
func showProgress(opt Options, bytes, lines *atomic.Int64) (stop func()) {
	if opt.Progress == nil && opt.Notify == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		shown := false
		for {
			select {
			case <-t.C:
				p := Progress{Elapsed: time.Since(start), Lines: lines.Load(), Bytes: bytes.Load()}
				if opt.Notify != nil {
					opt.Notify(p)
				}
				if opt.Progress != nil {
					fmt.Fprintf(opt.Progress, "\r\x1b[Kfreshctx: %s", p)
					shown = true
				}
			case <-done:
				if shown {
					fmt.Fprint(opt.Progress, "\r\x1b[K")
				}
				return
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// quoteArgs renders argv as a shell would need it typed.
func quoteArgs(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
			parts[i] = a
			continue
		}
		parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(parts, " ")
}
