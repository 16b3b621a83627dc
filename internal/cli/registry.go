package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/freshctx/freshctx/internal/render"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/config"
	"github.com/freshctx/freshctx/internal/nouns"
	"github.com/freshctx/freshctx/internal/registry"
	"github.com/freshctx/freshctx/internal/store"
)

// registry opens the registry service; bootstrap progress is drawn only
// for a person watching a terminal.
func (a *app) registry(cmd *cobra.Command) (*registry.Service, error) {
	return a.registryService(cmd.Context())
}

func (a *app) registryService(ctx context.Context) (*registry.Service, error) {
	st, err := a.store(ctx) // finds the workspace too
	return a.registryOn(ctx, st, err)
}

// registryLook is the registry for a look that writes no row (registry
// verify without --apply): the store is opened for reading, so that one on
// a read-only mount or a full disk is read too, and the service saves no
// scan index. Where there is no store yet it is made, as a sync would:
// what the look finds is that every file is new.
func (a *app) registryLook(cmd *cobra.Command) (*registry.Service, error) {
	ctx := cmd.Context()
	st, err := a.readOrMakeStore(ctx)
	svc, err := a.registryOn(ctx, st, err)
	if svc != nil {
		svc.Looking = true
	}
	return svc, err
}

func (a *app) registryOn(ctx context.Context, st *store.Store, err error) (*registry.Service, error) {
	if err != nil {
		return nil, err
	}
	ws := a.ws
	max, err := config.MaxFileSize(ctx, st)
	if err != nil {
		return nil, err
	}
	svc := &registry.Service{WS: ws, Store: st, Cwd: a.io.Cwd, MaxFileSize: max}
	if a.io.OutIsTerminal && a.io.ErrIsTerminal && !a.json {
		svc.Progress = a.io.Err
	}
	return svc, nil
}

func newRegistryCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "registry",
		Short: "A memory of every file and its summary, verified in O(changed)",
		Long: `The registry remembers every file of the work tree with its digest and the
summary an agent wrote for it. sync trusts it when nothing changed, verifies
only what changed when something did, and never clears a summary: a changed
file's summary is flagged stale with the lines added and removed since.

Binaries, lockfiles, vendored and generated files, and files over the
registry.max_file_size setting are skipped and counted.`,
	}
	cmd.AddCommand(newRegistrySyncCmd(a), newRegistryVerifyCmd(a), newRegistryListCmd(a),
		newRegistrySummarizeCmd(a), newRegistryCloseCmd(a))
	return cmd
}

func newRegistrySyncCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "sync",
		Short: "Bring the registry up to date: empty, bootstrap, trust or verify",
		Long: `Run at the start of a session. Depending on the state it finds:
  empty      the work tree has no files: nothing is written
  bootstrap  the registry is empty: every file is listed with its digest
  trust      the tree is clean, not behind its upstream, and HEAD is the
             commit last verified: nothing is read
  verify     anything else: only what may have changed is hashed`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.registry(cmd)
			if err != nil {
				return err
			}
			res, err := svc.Sync(cmd.Context())
			if err != nil {
				return err
			}
			team := a.fillFromTeam(cmd.Context(), svc)
			return a.render(struct {
				*registry.SyncResult
				Team *teamFill `json:"team,omitempty"`
			}{res, team}, func() error {
				if err := render.Sync(a.io.Out, res); err != nil || team == nil {
					return err
				}
				return team.print(a)
			})
		},
	}
}

func newRegistryVerifyCmd(a *app) *cobra.Command {
	var apply bool
	cmd := &cobra.Command{
		Use:   "verify [--apply]",
		Short: "Check what changed since the last verification (read-only unless --apply)",
		Long: `Hash only what may have changed since the last verified commit and give a
verdict per path: match, mismatch, missing or new. No row is written unless
--apply is given: the store is opened for reading, so one on a read-only
mount or a full disk is verified too (where there is no store yet, one is
made), and the hashes of the files read are kept only where it can be
written.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			open := a.registry
			if !apply {
				open = a.registryLook
			}
			svc, err := open(cmd)
			if err != nil {
				return err
			}
			res, err := svc.Verify(cmd.Context(), apply)
			if err != nil {
				return err
			}
			return a.render(res, func() error { return render.Verify(a.io.Out, res) })
		},
	}
	cmd.Flags().BoolVar(&apply, "apply", false, "write the verdicts to the registry")
	return cmd
}

func newRegistryListCmd(a *app) *cobra.Command {
	var stale bool
	cmd := &cobra.Command{
		Use:   "list [--stale]",
		Short: "Bring the registry up to date, then list its files and summaries",
		Long: `List the registered files and their summaries as the files are now. A
registry with rows is first brought up to date as registry sync does: when
nothing changed that is an lstat per row and writes nothing; when something
did, what changed is hashed and written (the output says so, and --json's
"synced" is "verify"), so no row and no stale flag speaks of a file as it
was before an edit. For a look that writes nothing, use registry verify.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.registry(cmd)
			if err != nil {
				return err
			}
			res, err := svc.ListCurrent(cmd.Context(), stale)
			if err != nil {
				return err
			}
			return a.render(res, func() error { return render.RegistryList(a.io.Out, res) })
		},
	}
	cmd.Flags().BoolVar(&stale, "stale", false, "only files whose summary no longer matches their content")
	return cmd
}

const summarizeLong = `Store a summary for one file (--text), or many from a JSON file of
[{"path": "...", "summary": "..."}] (--json-file, "-" for stdin). The summary
is recorded against the file's current content, so a later change flags it
stale and says how many lines moved, and with who wrote it (--by: agent or
person; a person at a terminal by default, else an agent).

--auto has a model write them: every registered file without a current
summary (or the PATHs given) is sent, redacted, to the OpenAI-compatible
chat endpoint configured with summarize.endpoint and summarize.model (ollama,
llama.cpp's server, vLLM, …); nothing is sent without them. Sensitive and
binary files, and files over summarize.max_file_size, are never sent. Each
summary is stored as it arrives, with the model, the endpoint and the
prompt's version; an answer that is empty, cut off, far longer than the
file, not text, or a repeat of the prompt or the file is refused and
reported, never stored. Ctrl-C keeps every summary finished; running again
goes on with the rest. --dry-run lists what would be sent, and its size.`

// summarizeOptions are summarize's paths and flags.
type summarizeOptions struct {
	paths              []string
	text, jsonFile, by string
	auto               autoOptions
}

func newRegistrySummarizeCmd(a *app) *cobra.Command {
	var o summarizeOptions
	cmd := &cobra.Command{
		Use:   "summarize PATH --text SUMMARY | --json-file F | --auto [PATH…]",
		Short: "Store summaries, each against the file's content now",
		Long:  summarizeLong,
		Example: `  freshctx registry summarize src/auth.go --text "Checks session tokens; refreshes them near expiry."
  freshctx config summarize.endpoint http://127.0.0.1:11434/v1
  freshctx config summarize.model qwen2.5-coder:7b
  freshctx registry summarize --auto --dry-run
  freshctx registry summarize --auto --jobs 4 --max-tokens 500000`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.paths = args
			if o.auto.on {
				if o.text != "" || o.jsonFile != "" {
					return usagef("--auto writes the summaries itself: give no --text or --json-file")
				}
				return runAutoSummarize(cmd, a, args, o.auto)
			}
			res, err := a.runSummarize(cmd.Context(), o)
			if err != nil {
				return err
			}
			return a.render(res, func() error {
				_, err := fmt.Fprintf(a.io.Out, "summarized %s\n", nouns.Count(len(res.Updated), "file", "files"))
				return err
			})
		},
	}
	cmd.Flags().StringVar(&o.text, "text", "", "the summary of PATH")
	cmd.Flags().StringVar(&o.jsonFile, "json-file", "", `a JSON file of [{"path","summary"}] ("-": stdin)`)
	cmd.Flags().StringVar(&o.by, "by", "", "who wrote the summaries: agent or person (default: a person at a terminal, else an agent)")
	o.auto.flags(cmd)
	return cmd
}

// runSummarize stores the summaries given (all or none), each with its
// author, and starts the team publisher.
func (a *app) runSummarize(ctx context.Context, o summarizeOptions) (*registry.SummarizeResult, error) {
	items, err := summaryItems(a, o.paths, o.text, o.jsonFile)
	if err != nil {
		return nil, err
	}
	by, err := summaryAuthor(a, o.by)
	if err != nil {
		return nil, err
	}
	for i := range items {
		items[i].By = by
	}
	svc, err := a.registryService(ctx)
	if err != nil {
		return nil, err
	}
	res, err := svc.Summarize(ctx, items)
	if err != nil {
		return nil, err
	}
	a.startTeamPublisher(ctx, svc.Store)
	return res, nil
}

// summaryAuthor is --by, or its default: a person when one is at the
// terminal, an agent (whose tools run without one) otherwise.
func summaryAuthor(a *app, by string) (string, error) {
	switch by {
	case registry.ByAgent, registry.ByPerson:
		return by, nil
	case "":
		if a.io.OutIsTerminal && a.io.ErrIsTerminal {
			return registry.ByPerson, nil
		}
		return registry.ByAgent, nil
	}
	return "", usagef("--by %q: want agent or person", by)
}

func summaryItems(a *app, args []string, text, jsonFile string) ([]registry.Summary, error) {
	switch {
	case jsonFile != "" && (text != "" || len(args) > 0):
		return nil, usagef("give PATH --text SUMMARY or --json-file F, not both")
	case jsonFile != "":
		r, err := a.open("--json-file", jsonFile)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		var items []registry.Summary
		if err := json.NewDecoder(r).Decode(&items); err != nil {
			return nil, usagef("--json-file: want [{\"path\": \"...\", \"summary\": \"...\"}]: %v", err)
		}
		return items, nil
	case len(args) != 1 || text == "":
		return nil, usagef("summarize takes PATH --text SUMMARY, or --json-file F")
	}
	return []registry.Summary{{Path: args[0], Summary: text}}, nil
}

func newRegistryCloseCmd(a *app) *cobra.Command {
	var commit string
	cmd := &cobra.Command{
		Use:   "close [--commit REV]",
		Short: "Record a task's commit: re-digest what it touched, flag summaries to rewrite",
		Long: `After a task commits, re-digest the files the commit touched, list those whose
summary is missing or no longer matches (needs_summary), and advance the last
verified commit when the commit is HEAD and follows it directly.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.registry(cmd)
			if err != nil {
				return err
			}
			res, err := svc.Close(cmd.Context(), commit)
			if err != nil {
				return err
			}
			return a.render(res, func() error { return render.Close(a.io.Out, res) })
		},
	}
	cmd.Flags().StringVar(&commit, "commit", "HEAD", "the commit the task made")
	return cmd
}
