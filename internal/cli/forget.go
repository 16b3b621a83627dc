package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/config"
	"github.com/freshctx/freshctx/internal/nouns"
	"github.com/freshctx/freshctx/internal/records"
)

// forgetOptions name the records to forget: ids, or an age.
type forgetOptions struct {
	ids       []string
	olderThan string
}

func newForgetCmd(a *app) *cobra.Command {
	var o forgetOptions
	cmd := &cobra.Command{
		Use:   "forget ID... | --older-than DUR",
		Short: "Delete records and the raw output nothing else uses",
		Long: `Delete records by id, or every record older than a duration, together with
the stored output no remaining record references. Either all the named
records are deleted or none is.`,
		Example: `  freshctx forget 12 13
  freshctx forget --older-than 30d`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ids = args
			out, err := a.runForget(cmd.Context(), o)
			if err != nil {
				return err
			}
			return a.render(out, func() error {
				_, err := fmt.Fprintf(a.io.Out, "forgot %s; deleted %d blobs, freed %d bytes\n",
					nouns.Count(len(out.IDs), "record", "records"), out.BlobsDeleted, out.BytesFreed)
				return err
			})
		},
	}
	cmd.Flags().StringVar(&o.olderThan, "older-than", "", "forget records older than this (e.g. 36h, 30d)")
	return cmd
}

// runForget deletes the records named, all or none.
func (a *app) runForget(ctx context.Context, o forgetOptions) (*records.Forgotten, error) {
	if (len(o.ids) == 0) == (o.olderThan == "") {
		return nil, usagef("forget takes record ids or --older-than DUR, not both or neither")
	}
	svc, err := a.records(ctx)
	if err != nil {
		return nil, err
	}
	if o.olderThan != "" {
		d, err := parseAge(o.olderThan)
		if err != nil {
			return nil, err
		}
		return svc.ForgetOlderThan(ctx, d)
	}
	ids := make([]int64, len(o.ids))
	for i, s := range o.ids {
		if ids[i], err = parseID(s); err != nil {
			return nil, err
		}
	}
	return svc.Forget(ctx, ids)
}

func parseAge(s string) (time.Duration, error) {
	d, err := config.ParseAge(s)
	if err != nil {
		return 0, usagef("--older-than: %v", err)
	}
	return d, nil
}
