package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/doctor"
)

func newDoctorCmd(a *app) *cobra.Command {
	var fix bool
	cmd := &cobra.Command{
		Use:   "doctor [--fix]",
		Short: "Check the store and repair what is safe to repair",
		Long: `Check the store: the database's integrity and schema, the blob files against
the rows that name them (orphan files, unfinished files of killed writers,
files an older freshctx set aside), records whose raw output is gone, the
permissions of the store's files, and git.

--fix removes orphan and unfinished files, puts back set-aside files a record
still needs, drops cached artifacts and read-cache versions whose content is
gone (they are rebuilt), and makes the store's files private. It never deletes
a record; one whose raw output is gone is named so you can forget it.

Without --fix the store is only read. doctor exits 1 when a check fails;
warnings exit 0.`,
		Example: `  freshctx doctor
  freshctx doctor --fix --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := a.runDoctor(cmd.Context(), fix)
			if err != nil {
				return err
			}
			if err := a.render(rep, func() error { return printDoctor(a.io.Out, rep) }); err != nil {
				return err
			}
			if !rep.OK {
				return exitStatus{1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&fix, "fix", false, "repair what is safe: leftover files, lost cache content, permissions")
	return cmd
}

// runDoctor checks the store (read-only unless fix) and repairs what is
// safe with fix.
func (a *app) runDoctor(ctx context.Context, fix bool) (*doctor.Report, error) {
	path, err := a.storePath(fix)
	if err != nil {
		return nil, err
	}
	st, openErr := a.openStore(ctx, !fix)
	return doctor.Run(ctx, doctor.Options{Path: path, Store: st, OpenErr: openErr, WS: a.ws, Fix: fix}), nil
}

func printDoctor(w io.Writer, rep *doctor.Report) error {
	fmt.Fprintf(w, "store %s\n", rep.Store)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range rep.Checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Status, c.Name, c.Detail)
		if c.Fixed != "" {
			fmt.Fprintf(tw, "\t\tfixed: %s\n", c.Fixed)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !rep.OK {
		_, err := fmt.Fprintln(w, "a check failed: see above")
		return err
	}
	return nil
}
