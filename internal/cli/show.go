package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/freshctx/freshctx/internal/render"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/store"

	"github.com/freshctx/freshctx/internal/records"
)

func parseID(s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(s, "#"), 10, 64)
	if err != nil || id <= 0 {
		return 0, usagef("record id %q: want a positive number (see freshctx list)", s)
	}
	return id, nil
}

// recordOf reads a record id and opens the records it is looked up in; a
// store not made yet holds no record.
func (a *app) recordOf(ctx context.Context, arg string) (int64, *records.Service, error) {
	id, err := parseID(arg)
	if err != nil {
		return 0, nil, err
	}
	svc, err := a.readRecords(ctx)
	if errors.Is(err, store.ErrNoStore) {
		return 0, nil, fmt.Errorf("record %d: %w", id, records.ErrNotFound)
	}
	return id, svc, err
}

func newShowCmd(a *app) *cobra.Command {
	var raw bool
	var stream string
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Print a record's digest and whether the files it names changed",
		Long: `Print a record's digest and its freshness now: fresh, stale_changed,
stale_deleted, unknown or no_refs, with a reason per file.

With --raw, print the output as it was: stdout to stdout and stderr to stderr,
or with --stream only that stream to stdout, byte for byte.`,
		Example: `  freshctx show 12
  freshctx show 12 --raw --stream stderr > err.log`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("show takes one record id")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if stream != "" && !raw {
				return usagef("--stream needs --raw")
			}
			id, svc, err := a.recordOf(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if raw {
				return showRaw(cmd, a, svc, id, stream)
			}
			rec, err := svc.Show(cmd.Context(), id)
			if err != nil {
				return err
			}
			return a.render(rec, func() error { return render.Show(a.io.Out, rec) })
		},
	}
	cmd.Flags().BoolVar(&raw, "raw", false, "print the raw output instead of the digest")
	cmd.Flags().StringVar(&stream, "stream", "", "with --raw: only this stream, stdout or stderr, to stdout")
	return cmd
}

func showRaw(cmd *cobra.Command, a *app, svc *records.Service, id int64, stream string) error {
	if a.json {
		return usagef("--raw prints bytes, not JSON; drop --json")
	}
	copyStream := func(s records.Stream, w io.Writer) error {
		rc, err := svc.Raw(cmd.Context(), id, s)
		if err != nil {
			return err
		}
		defer rc.Close()
		if _, err := io.Copy(w, rc); err != nil {
			return fmt.Errorf("record %d %s: %w", id, s, err)
		}
		return nil
	}
	// Byte for byte, except on a terminal, where nothing may act on it.
	out, flushOut := terminalSafe(a.io.Out, a.io.OutIsTerminal)
	errOut, flushErr := terminalSafe(a.io.Err, a.io.ErrIsTerminal)
	if stream != "" {
		s, ok := records.ParseStream(stream)
		if !ok {
			return usagef("--stream %q: want stdout or stderr", stream)
		}
		return errors.Join(copyStream(s, out), flushOut())
	}
	if err := errors.Join(copyStream(records.Stdout, out), flushOut()); err != nil {
		return err
	}
	return errors.Join(copyStream(records.Stderr, errOut), flushErr())
}
