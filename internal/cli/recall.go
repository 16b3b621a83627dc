package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/freshctx/freshctx/internal/render"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/store"

	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/teamsync"
)

// recallOptions are recall's query and flags.
type recallOptions struct {
	query    string
	files    []string
	limit    int
	withTeam bool
}

func newRecallCmd(a *app) *cobra.Command {
	var o recallOptions
	cmd := &cobra.Command{
		Use:   "recall QUERY",
		Short: "Find earlier records by what they said, freshest first among equals",
		Long: `Search records by words, file paths, test names, error codes and symbols.
Results are ranked by relevance: rare words weigh more, part of a name finds
the whole (fish finds fish_completions_test.go, GenFish finds
TestFailGenFishCompletionFile), and a full path, an exact test name or code
and the query's words in order count extra. Only records of near-equal
relevance are ordered by the rest: the latest run of a command first, then
the record whose files are unchanged, then the newer. Each result says which
of its files changed or were deleted since, whether a later run superseded
it, and what changed in its command's inputs.

An empty query lists the newest records (of --file, if given).`,
		Example: `  freshctx recall "TestAdd calc.go"
  freshctx recall E0308 --file src/
  freshctx recall --file internal/store/store.go ""`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("recall takes one query; quote it: freshctx recall \"two words\"")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.query = strings.Join(args, " ")
			if o.withTeam {
				if o.limit < 0 {
					return usagef("--limit must not be negative")
				}
				return a.recallTeam(cmd, o.query, o.limit)
			}
			hits, err := a.runRecall(cmd.Context(), o)
			if err != nil {
				return err
			}
			return a.render(map[string]any{"results": hits}, func() error { return render.Hits(a.io.Out, hits) })
		},
	}
	cmd.Flags().StringArrayVar(&o.files, "file", nil, "only records that reference this file or a file under this folder (repeatable)")
	cmd.Flags().IntVar(&o.limit, "limit", 10, "at most this many results")
	cmd.Flags().BoolVar(&o.withTeam, "team", false, "search the team's records of this repository (team init), each labelled by this work tree's bytes")
	return cmd
}

// runRecall searches this store's records; a store not made yet holds
// none.
func (a *app) runRecall(ctx context.Context, o recallOptions) ([]records.Hit, error) {
	if o.limit < 0 {
		return nil, usagef("--limit must not be negative")
	}
	svc, err := a.readRecords(ctx)
	if errors.Is(err, store.ErrNoStore) {
		return []records.Hit{}, nil
	}
	if err != nil {
		return nil, err
	}
	return svc.Recall(ctx, records.RecallRequest{Query: o.query, Files: o.files, Limit: o.limit})
}

// recallTeam searches the team store's records, labelled against this
// work tree.
func (a *app) recallTeam(cmd *cobra.Command, query string, limit int) error {
	st, s, err := a.teamSettingsReading(cmd.Context())
	if err != nil {
		return err
	}
	res, err := teamsync.Recall(cmd.Context(), st, a.ws, s, query, limit)
	if err != nil {
		return err
	}
	return a.render(res, func() error { return render.TeamHits(a.io.Out, res.Hits, res.Ignored) })
}
