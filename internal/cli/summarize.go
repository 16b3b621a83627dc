package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/config"
	"github.com/freshctx/freshctx/internal/render"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/summarize"
)

// autoOptions are the flags of `registry summarize --auto`.
type autoOptions struct {
	on, dryRun      bool
	jobs, maxTokens int
	timeout         time.Duration
}

func (o *autoOptions) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVar(&o.on, "auto", false, "have the configured model write the summaries (see summarize.* in freshctx config)")
	f.BoolVar(&o.dryRun, "dry-run", false, "with --auto: list what would be sent and its size, send nothing")
	f.IntVar(&o.jobs, "jobs", 4, "with --auto: requests at once")
	f.IntVar(&o.maxTokens, "max-tokens", 0, "with --auto: the run's token budget, requests and answers (0: none)")
	f.DurationVar(&o.timeout, "timeout", 2*time.Minute, "with --auto: the longest wait for an answer (when streaming: for its next piece)")
}

// autoSettings reads the summarize.* settings.
func autoSettings(ctx context.Context, st *store.Store, env []string) (summarize.Endpoint, int64, error) {
	get := func(name string) (string, error) {
		s, err := config.Get(ctx, st, name)
		return s.Value, err
	}
	var ep summarize.Endpoint
	var keyEnv, stream, size string
	var err error
	for _, kv := range []struct {
		name string
		to   *string
	}{{"summarize.endpoint", &ep.URL}, {"summarize.model", &ep.Model}, {"summarize.key_env", &keyEnv},
		{"summarize.stream", &stream}, {"summarize.max_file_size", &size}} {
		if *kv.to, err = get(kv.name); err != nil {
			return ep, 0, err
		}
	}
	ep.Stream = stream == "true"
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, keyEnv+"="); ok && keyEnv != "" {
			ep.Key = v
		}
	}
	max, err := config.ParseSize(size)
	return ep, max, err
}

func runAutoSummarize(cmd *cobra.Command, a *app, args []string, o autoOptions) error {
	if o.jobs < 1 || o.maxTokens < 0 || o.timeout <= 0 {
		return usagef("--jobs must be 1 or more, --max-tokens 0 or more, --timeout above 0")
	}
	// Ctrl-C stops sending and keeps what was finished; a second one
	// ends the process.
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()
	go func() { <-ctx.Done(); stop() }()
	auto, configured, err := a.newAuto(ctx, cmd, o)
	if err != nil {
		return err
	}
	if !configured && !o.dryRun {
		return usagef("no model is configured, and nothing is sent without one: set summarize.endpoint " +
			"(freshctx config summarize.endpoint http://127.0.0.1:11434/v1) and summarize.model; " +
			"--dry-run lists what would be sent")
	}
	plan, err := auto.Plan(ctx, args)
	if err != nil {
		return err
	}
	if o.dryRun {
		ep := auto.Endpoint
		if !configured {
			ep = summarize.Endpoint{}
		}
		d := plan.DryRun(ep)
		return a.render(d, func() error { return render.AutoPlan(a.io.Out, d) })
	}
	return a.sendPlan(ctx, auto, plan)
}

// newAuto is the summarize run the settings and flags describe;
// configured says whether an endpoint and a model are set.
func (a *app) newAuto(ctx context.Context, cmd *cobra.Command, o autoOptions) (*summarize.Auto, bool, error) {
	svc, err := a.registry(cmd)
	if err != nil {
		return nil, false, err
	}
	ep, maxSize, err := autoSettings(ctx, svc.Store, a.io.Env)
	if err != nil {
		return nil, false, err
	}
	ep.Timeout = o.timeout
	arts, err := a.artifacts(cmd)
	if err != nil {
		return nil, false, err
	}
	return &summarize.Auto{Registry: svc, Artifacts: arts, Endpoint: ep, MaxFileSize: maxSize,
		Options: summarize.Options{Jobs: o.jobs, MaxTokens: o.maxTokens}}, ep.URL != "" && ep.Model != "", nil
}

// sendPlan runs the plan with a progress line on a terminal, prints what
// it did, and exits 130 when interrupted, 1 when a file was not
// summarized.
func (a *app) sendPlan(ctx context.Context, auto *summarize.Auto, plan *summarize.Plan) error {
	ep := auto.Endpoint
	if !ep.Loopback() && strings.HasPrefix(ep.URL, "http://") && len(plan.Jobs) > 0 {
		fmt.Fprintf(a.io.Err, "freshctx: %s is another machine over plain http: the files travel unencrypted\n", ep.Name())
	}
	var draw io.Writer
	if a.io.ErrIsTerminal && !a.json {
		draw = a.io.Err
	}
	progress := summarize.StartProgress(draw, len(plan.Jobs), nil)
	res, err := auto.Run(ctx, plan, progress.Done)
	progress.Stop()
	if err != nil {
		return err
	}
	if err := a.render(res, func() error { return render.AutoSummarized(a.io.Out, res) }); err != nil {
		return err
	}
	switch {
	case res.Stopped == "interrupted":
		return exitStatus{130}
	case len(res.Failed)+len(res.Refused)+len(res.NotSent) > 0:
		return exitStatus{1}
	}
	return nil
}
