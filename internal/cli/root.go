package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/config"
	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/termsafe"
	"github.com/freshctx/freshctx/internal/workspace"
)

// app holds the global flags and what they open, lazily.
type app struct {
	io       IO
	rootFlag string
	storeArg string
	json     bool
	ran      bool
	// mcpSession is mcp --session: "" lets the server make one per connection.
	mcpSession string

	ws *workspace.Workspace
	st *store.Store
	// writePath is the store's path as a writer found it (storePath).
	writePath string
}

// Main runs freshctx with args and returns the process exit status.
func Main(ctx context.Context, args []string, streams IO) int {
	a := &app{io: streams}
	cmd := newRootCmd(a, args)
	cmd.SetArgs(args)
	cmd.SetIn(streams.In)
	cmd.SetOut(streams.Out)
	cmd.SetErr(streams.Err)
	err := cmd.ExecuteContext(ctx)
	if a.st != nil && streams.Exiting {
		a.st.Leave()
	} else if a.st != nil {
		a.st.Close()
	}
	if err == nil {
		return 0
	}
	if !a.ran {
		err = usageError{err} // cobra refused the arguments before any command ran
		a.json = a.json || jsonAsked(args)
	}
	var es exitStatus
	if !errors.As(err, &es) {
		reportError(streams, a.json, err)
	}
	return exitCode(err)
}

// jsonAsked reports whether args ask for --json before any "--": cobra
// parses no flag when it cannot find the command, yet the error must come
// as JSON too.
func jsonAsked(args []string) bool {
	for _, arg := range args {
		switch arg {
		case "--":
			return false
		case "--json", "--json=true":
			return true
		}
	}
	return false
}

const rootLong = `freshctx remembers context for coding agents and knows whether it is still true.

It keeps the whole output of commands you run through it, gives back a short
digest that keeps every failure and file:line, and labels what it remembers
fresh or stale against the files as they are now.

Exit status:
  0    success
  1    failure (the message says what failed)
  2    usage error
  run  exits with its command's status: 127 when the command is not found,
       126 when it cannot be executed, 128+N when killed by signal N
  3    artifact get: the artifact is stale
  4    artifact get: there is no such artifact
  1    doctor: a check failed (warnings exit 0)

Environment:
  FRESHCTX_ROOT   workspace root (like --root)
  FRESHCTX_STORE  store path (like --store); default <root>/.freshctx/freshctx.db`

// newRootCmd is the command tree, for args: the one command args start
// with, when they start with the name of one, else every command (for
// help, completion and the suggestions for a mistyped name).
func newRootCmd(a *app, args []string) *cobra.Command {
	cmd := &cobra.Command{
		Use:           "freshctx",
		Short:         "Context memory for coding agents that knows what is still true",
		Long:          rootLong,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			a.ran = true
			setCollector(c, a.io.Env)
			return nil
		},
	}
	addVersionFlag(cmd)
	cmd.PersistentFlags().StringVar(&a.rootFlag, "root", "", "workspace root (default: the git top level of the current directory, else the current directory)")
	cmd.PersistentFlags().StringVar(&a.storeArg, "store", "", "store database path (default <root>/.freshctx/freshctx.db)")
	cmd.PersistentFlags().BoolVar(&a.json, "json", false, "print exactly one JSON object on stdout")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w (see %s --help)", err, c.CommandPath())}
	})
	if len(args) > 0 {
		if only, ok := commands[args[0]]; ok {
			cmd.AddCommand(only(a))
			return cmd
		}
	}
	for _, name := range slices.Sorted(maps.Keys(commands)) {
		cmd.AddCommand(commands[name](a))
	}
	return cmd
}

// commands are freshctx's commands by name. A process builds only the one
// it runs: building every command, its flags and its help took about forty
// of the eight hundred pages a hook's process touches, a twentieth of its
// cost where a page fault is dear. The command built alone is the same
// (TestCommandsBuiltAloneAreTheWholeTrees).
var commands = map[string]func(*app) *cobra.Command{
	"run": newRunCmd, "capture": newCaptureCmd, "show": newShowCmd, "list": newListCmd, "forget": newForgetCmd,
	"recall": newRecallCmd, "stats": newStatsCmd, "config": newConfigCmd, "registry": newRegistryCmd,
	"artifact": newArtifactCmd, "read": newReadCmd, "session": newSessionCmd, "mcp": newMCPCmd, "init": newInitCmd,
	"hook": newHookCmd, "doctor": newDoctorCmd, "team": newTeamCmd, "version": newVersionCmd,
}

// workspace finds the root once.
func (a *app) workspace() (*workspace.Workspace, error) {
	if a.ws != nil {
		return a.ws, nil
	}
	root := a.rootFlag
	if root == "" {
		root = os.Getenv("FRESHCTX_ROOT")
	}
	var err error
	if root != "" {
		if !filepath.IsAbs(root) {
			root = filepath.Join(a.io.Cwd, root)
		}
		a.ws, err = workspace.Open(root)
	} else {
		a.ws, err = workspace.Discover(a.io.Cwd)
	}
	return a.ws, err
}

// store opens the store once for writing, creating it if need be; the
// default one is kept out of git.
func (a *app) store(ctx context.Context) (*store.Store, error) {
	return a.openStore(ctx, false)
}

// readStore opens the store once for reading: it creates nothing (a missing
// store is store.ErrNoStore) and still opens a store that cannot be written.
func (a *app) readStore(ctx context.Context) (*store.Store, error) {
	return a.openStore(ctx, true)
}

// readOrMakeStore opens the store for a command that only reads it (or
// writes only what it can go without), so that a store on a read-only
// mount or a full disk is read too; where there is none it is made, as a
// writer would make it: what the command answers there needs one (a team
// store named by FRESHCTX_TEAM alone, an artifact taken from it, the
// defaults of the settings, a registry's first look).
func (a *app) readOrMakeStore(ctx context.Context) (*store.Store, error) {
	st, err := a.readStore(ctx)
	if errors.Is(err, store.ErrNoStore) {
		return a.store(ctx)
	}
	return st, err
}

func (a *app) openStore(ctx context.Context, readOnly bool) (*store.Store, error) {
	if a.st != nil {
		return a.st, nil
	}
	path, err := a.storePath(!readOnly)
	if err != nil {
		return nil, err
	}
	a.st, err = store.Open(ctx, path, store.Options{ReadOnly: readOnly})
	return a.st, err
}

// storePath is --store, else FRESHCTX_STORE, else the workspace's default
// store. A writer first adds the store to .git/info/exclude when it lies in
// the work tree: the default's folder, or a store given inside it; the
// path it found is kept for the process (writePath), so that this is seen
// to, and said when it fails, once.
func (a *app) storePath(writing bool) (string, error) {
	if writing && a.writePath != "" {
		return a.writePath, nil
	}
	path, err := a.findStorePath(writing)
	if err == nil && writing {
		a.writePath = path
	}
	return path, err
}

func (a *app) findStorePath(writing bool) (string, error) {
	ws, err := a.workspace()
	if err != nil {
		return "", err
	}
	path := a.storeArg
	if path == "" {
		path = os.Getenv("FRESHCTX_STORE")
	}
	given := path != ""
	if !given {
		path = store.DefaultPath(ws.Root)
		if !writing {
			return path, nil
		}
		if err := a.projectRoot(ws.Root); err != nil {
			return "", err
		}
		if err := ws.ExcludeFromGit(store.DirName); err != nil {
			fmt.Fprintf(a.io.Err, "freshctx: warning: could not add %s to .git/info/exclude: %v\n", store.DirName, err)
		}
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(a.io.Cwd, path)
	}
	if rel, err := ws.Rel(path, "/"); err == nil && writing && given {
		if err := ws.ExcludeStoreFromGit(rel); err != nil {
			fmt.Fprintf(a.io.Err, "freshctx: warning: could not add %s to .git/info/exclude: %v\n", rel, err)
		}
	}
	return path, nil
}

// ErrNotAProject is a store refused where no project is: the file system
// root or the home folder, found from the working directory (an agent's
// hook started there, a command typed there) rather than given.
var ErrNotAProject = errors.New("not a project")

// projectRoot refuses to make the default store at a root found rather
// than given that is the file system root or the home folder: freshctx
// keeps its store in projects, never in /, /etc's parent or ~ because a
// command happened to start there. --root or $FRESHCTX_ROOT naming it, or
// --store, is the user saying otherwise.
func (a *app) projectRoot(root string) error {
	if a.rootFlag != "" || os.Getenv("FRESHCTX_ROOT") != "" {
		return nil
	}
	if err := notAProject(root); err != nil {
		return fmt.Errorf("%w: %w; freshctx keeps no store there (give --root DIR or --store PATH to say otherwise)", ErrNotAProject, err)
	}
	return nil
}

// records opens what the records service needs for writing.
func (a *app) records(ctx context.Context) (*records.Service, error) {
	return a.recordsWith(ctx, a.store)
}

// readRecords opens the records service for list, show, recall and stats;
// the error wraps store.ErrNoStore when there is no store yet.
func (a *app) readRecords(ctx context.Context) (*records.Service, error) {
	return a.recordsWith(ctx, a.readStore)
}

func (a *app) recordsWith(ctx context.Context, open func(context.Context) (*store.Store, error)) (*records.Service, error) {
	st, err := open(ctx) // finds the workspace too
	if err != nil {
		return nil, err
	}
	retention, err := config.Retention(ctx, st)
	if err != nil {
		return nil, err
	}
	return &records.Service{WS: a.ws, Store: st, Cwd: a.io.Cwd, Retention: retention}, nil
}

// runRecords opens the records service for run and capture. A store that
// cannot be opened does not stop the command: the service runs it without
// one and the record says why it was not kept. Only a missing workspace or a
// bad flag is an error here.
func (a *app) runRecords(ctx context.Context) (*records.Service, error) {
	if _, err := a.workspace(); err != nil {
		return nil, err
	}
	svc, err := a.records(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return &records.Service{WS: a.ws, Cwd: a.io.Cwd, StoreErr: err}, nil
	}
	return svc, nil
}

// render prints v as JSON with --json, else calls text with a.io's
// streams cleaned of control sequences (a command line, label, summary or
// key is whatever a user or a tool wrote). Content that must stay exact —
// a file read, an artifact — goes to Content(), cleaned only when a person
// reads it on a terminal. What text prints on Out is buffered, so that a
// listing is written in a few writes rather than one a line (show of a
// record naming 2,000 files wrote 2,003 times); a write to Err first
// writes what Out holds, so the two streams keep their order.
func (a *app) render(v any, text func() error) error {
	if a.json {
		return writeJSON(a.io.Out, v)
	}
	orig := a.io
	buf := bufio.NewWriterSize(orig.Out, renderBuffer)
	out, errOut := termsafe.NewWriter(buf), termsafe.NewWriter(outFirst{buf, orig.Err})
	a.io.Out, a.io.Err = out, errOut
	a.io.content = buf
	if orig.OutIsTerminal {
		a.io.content = out
	}
	defer func() { a.io = orig }()
	err := text()
	if ferr := errors.Join(out.Flush(), errOut.Flush(), buf.Flush()); err == nil {
		err = ferr
	}
	return err
}

// renderBuffer is how much of Out render holds before it writes.
const renderBuffer = 32 << 10

// outFirst writes to err what is written to it, after what out holds. A
// failed write of out does not stop err's (bufio keeps the error for
// render's last Flush to return).
type outFirst struct {
	out *bufio.Writer
	err io.Writer
}

func (w outFirst) Write(p []byte) (int, error) {
	w.out.Flush()
	return w.err.Write(p)
}
