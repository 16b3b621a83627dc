package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/config"
	"github.com/freshctx/freshctx/internal/nouns"
	"github.com/freshctx/freshctx/internal/records"
)

func newForgetCmd(a *app) *cobra.Command {
	var olderThan string
	cmd := &cobra.Command{
		Use:   "forget ID... | --older-than DUR",
		Short: "Delete records and the raw output nothing else uses",
		Long: `Delete records by id, or every record older than a duration, together with
the stored output no remaining record references. Either all the named
records are deleted or none is.`,
		Example: `  freshctx forget 12 13
  freshctx forget --older-than 30d`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 0) == (olderThan == "") {
				return usagef("forget takes record ids or --older-than DUR, not both or neither")
			}
			svc, err := a.records(cmd.Context())
			if err != nil {
				return err
			}
			var out *records.Forgotten
			if olderThan != "" {
				d, err := parseAge(olderThan)
				if err != nil {
					return err
				}
				out, err = svc.ForgetOlderThan(cmd.Context(), d)
				if err != nil {
					return err
				}
			} else {
				ids := make([]int64, len(args))
				for i, s := range args {
					if ids[i], err = parseID(s); err != nil {
						return err
					}
				}
				if out, err = svc.Forget(cmd.Context(), ids); err != nil {
					return err
				}
			}
			return a.render(out, func() error {
				_, err := fmt.Fprintf(a.io.Out, "forgot %s; deleted %d blobs, freed %d bytes\n",
					nouns.Count(len(out.IDs), "record", "records"), out.BlobsDeleted, out.BytesFreed)
				return err
			})
		},
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "", "forget records older than this (e.g. 36h, 30d)")
	return cmd
}

func parseAge(s string) (time.Duration, error) {
	d, err := config.ParseAge(s)
	if err != nil {
		return 0, usagef("--older-than: %v", err)
	}
	return d, nil
}
