package cli

import (
	"context"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/compress"
	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/render"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/workspace"
)

type recordFlags struct {
	intent    string
	label     string
	maxTokens int
	inputs    []string
}

func (f *recordFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.intent, "intent", "summary", "what the digest is for: summary, errors, tests or raw")
	cmd.Flags().StringVar(&f.label, "label", "", "a label to find the record by")
	cmd.Flags().IntVar(&f.maxTokens, "max-tokens", 0, "cap the digest at this many tokens, saying what was left out (0: no cap)")
	cmd.Flags().StringArrayVar(&f.inputs, "inputs", nil, "the files the command reads, as a glob relative to the current folder ('**' for any folders; repeatable); replaces the scope chosen from the command")
}

// prepare validates the flags and opens the records service.
func (f *recordFlags) prepare(ctx context.Context, a *app) (records.Options, *records.Service, error) {
	opt, err := f.options(a)
	if err != nil {
		return opt, nil, err
	}
	svc, err := a.runRecords(ctx)
	if err != nil {
		return opt, nil, err
	}
	if opt.Inputs, err = svc.ScopeGlobs(f.inputs); err != nil {
		return opt, nil, usageError{err}
	}
	return opt, svc, nil
}

func (f *recordFlags) options(a *app) (records.Options, error) {
	in, err := compress.ParseIntent(f.intent)
	if err != nil {
		return records.Options{}, usageError{err}
	}
	if f.maxTokens < 0 {
		return records.Options{}, usagef("--max-tokens must not be negative")
	}
	// The footer prints a small run's counts only if they were made: the
	// JSON, stats, show and list make them when they are asked for.
	opt := records.Options{Label: f.label, Intent: in, MaxTokens: f.maxTokens, TokensLater: !a.json}
	if a.io.ErrIsTerminal && !a.json {
		opt.Progress = a.io.Err
	}
	return opt, nil
}

func newRunCmd(a *app) *cobra.Command {
	var f recordFlags
	cmd := &cobra.Command{
		Annotations: map[string]string{collectorKey: collectCapture},
		Use:         "run [flags] -- CMD [ARG...]",
		Short:       "Run a command, keep its whole output, print a digest",
		Long: `Run a command with your environment, stdin and working directory. Both output
streams are kept byte for byte in the store; what is printed is a digest that
keeps every error, failure and file:line, then a footer naming the record.
The footer gives the raw and digest token counts when the digest left
something out; a small output printed whole leaves them to show, list and
stats (--json counts at once).

freshctx exits with the command's exit status.`,
		Example: `  freshctx run -- go test ./...
  freshctx run --intent errors --max-tokens 800 -- cargo build`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("run: no command given (usage: freshctx run -- CMD [ARG...])")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			rec, err := a.runRun(cmd.Context(), f, args)
			if err != nil {
				return err
			}
			if err := a.render(rec, func() error { return render.Record(a.io.Out, rec) }); err != nil {
				return err
			}
			if *rec.ExitCode != 0 {
				return exitStatus{*rec.ExitCode}
			}
			return nil
		},
	}
	cmd.Flags().SetInterspersed(false)
	f.register(cmd)
	return cmd
}

// runRun runs the command and records it; its git status starts beside
// the store's opening and the command, and a store that is there already
// opens beside the command too (prepareBeside).
func (a *app) runRun(ctx context.Context, f recordFlags, argv []string) (*records.Record, error) {
	statusCtx, stopStatus := context.WithCancel(context.WithoutCancel(ctx))
	defer stopStatus()
	status := a.startStatus(statusCtx)
	opt, svc, open, err := f.prepareBeside(ctx, a)
	if err != nil {
		return nil, err
	}
	rec, err := svc.Run(ctx, records.RunRequest{Options: opt, Argv: argv, Stdin: a.io.In, Env: a.io.Env,
		GitStatus: status, OpenStore: open})
	return a.finishRecord(ctx, svc, rec, err)
}

// prepareBeside is prepare for run and capture. Where the store is there
// already its opening (SQLite, its schema, the retention setting: some
// milliseconds) is left to Run, which starts the command first, or to
// Capture, which starts reading (RunRequest.OpenStore); a store still to
// be made is made first, so that a command never sees it appear.
func (f *recordFlags) prepareBeside(ctx context.Context, a *app) (records.Options, *records.Service, storeOpener, error) {
	if !a.storeToOpen() {
		opt, svc, err := f.prepare(ctx, a)
		return opt, svc, nil, err
	}
	opt, err := f.options(a)
	if err != nil {
		return opt, nil, nil, err
	}
	svc := &records.Service{WS: a.ws, Cwd: a.io.Cwd}
	if opt.Inputs, err = svc.ScopeGlobs(f.inputs); err != nil {
		return opt, nil, nil, usageError{err}
	}
	// The records service's own opening (a.records), on Run's goroutine:
	// it sets a.st, which nothing reads until Run has waited for it, and
	// finds the path storeToOpen found (storePath keeps it).
	open := func(ctx context.Context) (*store.Store, time.Duration, error) {
		opened, err := a.records(ctx)
		if err != nil {
			return nil, 0, err
		}
		return opened.Store, opened.Retention, nil
	}
	return opt, svc, open, nil
}

// storeOpener opens the store a record is kept in, with the records'
// retention (records.RunRequest.OpenStore).
type storeOpener = func(context.Context) (*store.Store, time.Duration, error)

// storeToOpen reports whether the store a run keeps its record in is
// there already and not yet open: only its opening is left.
// The path is found as a writer finds it (storePath), so that
// .git/info/exclude is seen to first.
func (a *app) storeToOpen() bool {
	if a.st != nil {
		return false
	}
	if _, err := a.workspace(); err != nil {
		return false
	}
	path, err := a.storePath(true)
	if err != nil {
		return false
	}
	_, err = os.Stat(path)
	return err == nil
}

// captureOptions are capture's flags.
type captureOptions struct {
	recordFlags
	files    []string
	exitCode *int // --exit-code, when given
}

func newCaptureCmd(a *app) *cobra.Command {
	var o captureOptions
	var exitCode int
	cmd := &cobra.Command{
		Annotations: map[string]string{collectorKey: collectCapture},
		Use:         "capture [flags] < OUTPUT",
		Short:       "Record text from stdin, as run does for a command",
		Long: `Record text read from stdin as run records a command's output: the whole
text kept, a digest printed with a footer naming the record (token counts as
run gives them).

--exit-code N records the status of the command that wrote the text, where
it is known (a pipe's status is not, until the pipe ends: write the output
to a file first, as in the second example); capture then exits with N.`,
		Example: `  make 2>&1 | freshctx capture --label build
  go test ./... > test.log 2>&1; freshctx capture --exit-code $? < test.log
  freshctx capture --file docs/deploy.md < notes.txt`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("exit-code") {
				o.exitCode = &exitCode
			}
			rec, err := a.runCapture(cmd.Context(), o)
			if err != nil {
				return err
			}
			if err := a.render(rec, func() error { return render.Record(a.io.Out, rec) }); err != nil {
				return err
			}
			if o.exitCode != nil && *o.exitCode != 0 {
				return exitStatus{*o.exitCode}
			}
			return nil
		},
	}
	o.register(cmd)
	cmd.Flags().StringArrayVar(&o.files, "file", nil, "a file the text is about, or a folder: everything under it (repeatable)")
	cmd.Flags().IntVar(&exitCode, "exit-code", 0, "the exit status of the command that wrote the text; capture exits with it")
	return cmd
}

// runCapture records stdin as a command's output.
func (a *app) runCapture(ctx context.Context, o captureOptions) (*records.Record, error) {
	if o.exitCode != nil && (*o.exitCode < 0 || *o.exitCode > 255) {
		return nil, usagef("--exit-code must be 0 to 255, not %d", *o.exitCode)
	}
	opt, svc, open, err := o.prepareBeside(ctx, a)
	if err != nil {
		return nil, err
	}
	rec, err := svc.Capture(ctx, records.CaptureRequest{Options: opt, Input: a.io.In, Files: o.files, ExitCode: o.exitCode,
		OpenStore: open})
	return a.finishRecord(ctx, svc, rec, err)
}

// finishRecord finishes a new record (or passes on why there is none): its
// freshness for --json, and its place in the team store's queue.
func (a *app) finishRecord(ctx context.Context, svc *records.Service, rec *records.Record, err error) (*records.Record, error) {
	if err != nil {
		return nil, err
	}
	if err := a.checkNew(ctx, svc, rec); err != nil {
		return nil, err
	}
	a.queueForTeam(ctx, svc, rec)
	return rec, nil
}

// checkNew gives a new record its freshness for --json, as show would: its
// files were stamped as the command ended, so this is one stat each.
func (a *app) checkNew(ctx context.Context, svc *records.Service, rec *records.Record) error {
	if !a.json || rec.ID == 0 {
		return nil
	}
	return svc.CheckAll(ctx, []*records.Record{rec})
}

// startStatus starts the git status a run's record takes its git facts
// from before the store is opened, so that it runs beside the opening as
// well as the command. Nil outside git or without a workspace (the run
// then says why as it would have).
func (a *app) startStatus(ctx context.Context) func() (*workspace.Status, error) {
	ws, err := a.workspace()
	if err != nil {
		return nil
	}
	return records.StartGitStatus(ctx, ws)
}
