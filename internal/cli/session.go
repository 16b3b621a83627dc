package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/freshctx/freshctx/internal/render"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/store"
)

func (a *app) readcache(ctx context.Context) (*readcache.Service, error) {
	return a.readcacheOn(a.store(ctx)) // finds the workspace too
}

// readcacheReading is the read cache for session list and status, which
// only read: a store that cannot be written (a read-only mount, a full
// disk) is read too, and none is made where there is none: the error is
// then store.ErrNoStore.
func (a *app) readcacheReading(ctx context.Context) (*readcache.Service, error) {
	return a.readcacheOn(a.readStore(ctx))
}

func (a *app) readcacheOn(st *store.Store, err error) (*readcache.Service, error) {
	if err != nil {
		return nil, err
	}
	// Text output shows no token counts: a note's is made when status asks.
	return &readcache.Service{WS: a.ws, Store: st, Cwd: a.io.Cwd, TokensLater: !a.json}, nil
}

// sessionFlag registers --session, defaulting to $FRESHCTX_SESSION, else
// "default".
func sessionFlag(cmd *cobra.Command, s *string) {
	def := os.Getenv("FRESHCTX_SESSION")
	if def == "" {
		def = "default"
	}
	cmd.Flags().StringVar(s, "session", def, "the session (default $FRESHCTX_SESSION, else \"default\")")
	// The help says the default; pflag would say it again from the value.
	cmd.Flags().Lookup("session").DefValue = ""
}

func newReadCmd(a *app) *cobra.Command {
	var req readcache.ReadRequest
	cmd := &cobra.Command{
		Use:   "read PATH[:N-M] [--offset N] [--limit M]",
		Short: "Read a file, or only what changed since this session last read it",
		Long: `Read a file as a plain read tool would, but answer from what this session has
already seen: "unchanged" when the model's latest view of the scope equals
the file, a unified diff when that is cheaper than the file, and the content
otherwise (full on a first read, baseline_fallback when an earlier view
exists but cannot be used). :N-M reads lines N to M (1-based, inclusive), :N
from line N to the end. Output stops at 2,000 lines or 50 KB with a hint to
continue. Sensitive files (.env*, keys, certificates, .netrc, .npmrc, ssh
files) are refused without --allow-sensitive.`,
		Example: `  freshctx read internal/store/store.go
  freshctx read internal/store/store.go:40-80 --session agent-1`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("read takes one PATH[:N-M]")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Target = args[0]
			ans, err := a.runRead(cmd.Context(), req)
			if err != nil {
				return err
			}
			if ans.plainWhy != nil {
				fmt.Fprintf(a.io.Err, "freshctx: the store cannot be used (%v): served as a plain read, nothing cached\n", ans.plainWhy)
				return a.render(ans.res, func() error { return render.ReadText(a.io.Content(), ans.res) })
			}
			if err := a.render(ans.res, func() error { return printRead(a.io, ans.res) }); err != nil {
				return err // not delivered: not trusted
			}
			return ans.delivered(cmd.Context())
		},
	}
	sessionFlag(cmd, &req.Session)
	cmd.Flags().IntVar(&req.Offset, "offset", 0, "first line to read (1-based)")
	cmd.Flags().IntVar(&req.Limit, "limit", 0, "number of lines to read")
	cmd.Flags().BoolVar(&req.AllowSensitive, "allow-sensitive", false, "serve a sensitive file (env, keys, credentials)")
	return cmd
}

// readAnswer is what read prints and what makes it trusted: the read
// cache takes an answer as what the model holds only once delivered,
// which the caller says after printing it.
type readAnswer struct {
	res *readcache.ReadResult
	// plainWhy says why the store could not be used: the file was served
	// as a plain read would serve it, and nothing is cached.
	plainWhy error
	// delivered marks the answer delivered (a plain read's does nothing).
	delivered func(context.Context) error
}

// runRead answers a read from the session's pictures, or, when the store
// cannot be used, as a plain read tool would.
func (a *app) runRead(ctx context.Context, req readcache.ReadRequest) (readAnswer, error) {
	svc, err := a.readcache(ctx)
	if err != nil {
		ws, werr := a.workspace()
		if werr != nil || errors.As(err, new(usageError)) {
			return readAnswer{}, err
		}
		plain := &readcache.Service{WS: ws, Cwd: a.io.Cwd}
		res, perr := plain.Plain(ctx, req, err.Error())
		if perr != nil {
			return readAnswer{}, perr
		}
		return readAnswer{res: res, plainWhy: err, delivered: func(context.Context) error { return nil }}, nil
	}
	res, err := svc.Read(ctx, req)
	if err != nil {
		return readAnswer{}, err
	}
	return readAnswer{res: res, delivered: func(ctx context.Context) error { return svc.Delivered(ctx, res) }}, nil
}

func printRead(streams IO, r *readcache.ReadResult) error {
	if err := render.ReadHeader(streams.Err, r); err != nil {
		return err
	}
	return render.ReadText(streams.Content(), r)
}

func newSessionCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session",
		Short: "Sessions of the read cache: new, list, delete, compact, checkout, fork, refresh, status, gc",
		Long: `A session is a tree of entries (reads, compactions, refreshes) with a current
leaf; read answers from what the path to the leaf has shown the model since
its latest compaction.`,
	}
	cmd.AddCommand(newSessionNewCmd(a), newSessionListCmd(a), newSessionDeleteCmd(a), newSessionCompactCmd(a), newSessionCheckoutCmd(a), newSessionForkCmd(a),
		newSessionRefreshCmd(a), newSessionStatusCmd(a), newSessionGCCmd(a))
	return cmd
}

func newSessionListCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List sessions: entries, the process serving each, and which have ended",
		Long: `List the read cache's sessions. A session an MCP server made for one
connection ends with it, and an agent's conversation (its subagents too)
when its hooks say it ended: "ended" sessions are deleted by session gc.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			list, err := a.sessions(cmd.Context())
			if err != nil {
				return err
			}
			return a.render(map[string]any{"sessions": list}, func() error { return render.Sessions(a.io.Out, list) })
		},
	}
}

// sessions lists the read cache's sessions; a store not made yet holds
// none.
func (a *app) sessions(ctx context.Context) ([]readcache.SessionInfo, error) {
	svc, err := a.readcacheReading(ctx)
	if errors.Is(err, store.ErrNoStore) {
		return []readcache.SessionInfo{}, nil
	}
	if err != nil {
		return nil, err
	}
	return svc.Sessions(ctx)
}

func newSessionDeleteCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a session that no running process serves",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("session delete takes one session name")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.readcache(cmd.Context())
			if err != nil {
				return err
			}
			n, err := svc.Delete(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.render(map[string]any{"deleted": args[0], "entries": n}, func() error {
				_, err := fmt.Fprintf(a.io.Out, "deleted session %s (%d entries); session gc frees the file versions only it used\n", args[0], n)
				return err
			})
		},
	}
}

func newSessionNewCmd(a *app) *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "new [--session NAME]",
		Short: "Start an empty session (a new name unless --session gives one)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.readcache(cmd.Context())
			if err != nil {
				return err
			}
			res, err := svc.New(cmd.Context(), name)
			if err != nil {
				return err
			}
			return a.render(res, func() error {
				_, err := fmt.Fprintln(a.io.Out, res.Session)
				return err
			})
		},
	}
	cmd.Flags().StringVar(&name, "session", "", "name of the new session")
	return cmd
}

func newSessionCompactCmd(a *app) *cobra.Command {
	var session string
	cmd := &cobra.Command{
		Use:   "compact",
		Short: "Record a compaction: reads after it trust nothing from before",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.readcache(cmd.Context())
			if err != nil {
				return err
			}
			res, err := svc.Compact(cmd.Context(), session)
			if err != nil {
				return err
			}
			return a.render(res, func() error { return render.Session(a.io.Out, res) })
		},
	}
	sessionFlag(cmd, &session)
	return cmd
}

func newSessionCheckoutCmd(a *app) *cobra.Command {
	var session string
	cmd := &cobra.Command{
		Use:   "checkout ENTRY",
		Short: "Move the session's leaf to an entry of its tree",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("checkout takes one ENTRY")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return usagef("entry %q: want a positive number", args[0])
			}
			svc, err := a.readcache(cmd.Context())
			if err != nil {
				return err
			}
			res, err := svc.Checkout(cmd.Context(), session, id)
			if err != nil {
				return err
			}
			return a.render(res, func() error { return render.Session(a.io.Out, res) })
		},
	}
	sessionFlag(cmd, &session)
	return cmd
}

func newSessionForkCmd(a *app) *cobra.Command {
	var session, name string
	var at int64
	cmd := &cobra.Command{
		Use:   "fork [--at ENTRY] [--name NEW]",
		Short: "Start a session that shares this one's path up to an entry",
		Long: `Start a session whose path is this one's up to ENTRY (the leaf by default);
from there the two grow apart and neither sees the other's entries. A file
a read on that path was still waiting to deliver (a tool call running when
the fork was taken) is read afresh in the new session: whether that answer
reached the conversation before the fork was taken is the client's to know.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.readcache(cmd.Context())
			if err != nil {
				return err
			}
			res, err := svc.Fork(cmd.Context(), session, at, name)
			if err != nil {
				return err
			}
			return a.render(res, func() error { return render.Session(a.io.Out, res) })
		},
	}
	sessionFlag(cmd, &session)
	cmd.Flags().Int64Var(&at, "at", 0, "the entry to fork at (default: the leaf)")
	cmd.Flags().StringVar(&name, "name", "", "name of the new session")
	return cmd
}

func newSessionRefreshCmd(a *app) *cobra.Command {
	var session string
	cmd := &cobra.Command{
		Use:   "refresh PATH[:N-M]",
		Short: "Make the next read of a file (or lines) baseline",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("refresh takes one PATH[:N-M]")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.readcache(cmd.Context())
			if err != nil {
				return err
			}
			res, err := svc.Refresh(cmd.Context(), session, args[0])
			if err != nil {
				return err
			}
			return a.render(res, func() error { return render.Session(a.io.Out, res) })
		},
	}
	sessionFlag(cmd, &session)
	return cmd
}

func newSessionStatusCmd(a *app) *cobra.Command {
	var session string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "What the session trusts, its replay window, reads by mode, tokens saved",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := a.sessionStatus(cmd.Context(), session)
			if err != nil {
				return err
			}
			return a.render(st, func() error { return render.Status(a.io.Out, st) })
		},
	}
	sessionFlag(cmd, &session)
	return cmd
}

// sessionStatus is the status of one session; a store not made yet holds
// no session.
func (a *app) sessionStatus(ctx context.Context, session string) (*readcache.Status, error) {
	svc, err := a.readcacheReading(ctx)
	if errors.Is(err, store.ErrNoStore) {
		return nil, fmt.Errorf("session %q: %w", session, readcache.ErrNoSession)
	}
	if err != nil {
		return nil, err
	}
	return svc.Status(ctx, session)
}

func newSessionGCCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "gc",
		Short: "Delete ended sessions and stored file versions no entry refers to",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.readcache(cmd.Context())
			if err != nil {
				return err
			}
			res, err := svc.GC(cmd.Context())
			if err != nil {
				return err
			}
			return a.render(res, func() error {
				_, err := fmt.Fprintf(a.io.Out, "removed %d ended sessions (%d entries), %d versions; %d blobs, %d bytes freed\n",
					res.Sessions, res.Entries, res.Versions, res.Blobs, res.BytesFreed)
				return err
			})
		},
	}
}
