package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/freshctx/freshctx/internal/render"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/artifact"
	"github.com/freshctx/freshctx/internal/config"
	"github.com/freshctx/freshctx/internal/nouns"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/teamsync"
)

// Exit statuses of `artifact get`.
const (
	exitStale = 3
	exitCold  = 4
)

func (a *app) artifacts(cmd *cobra.Command) (*artifact.Service, error) {
	return a.artifactService(cmd.Context())
}

func (a *app) artifactService(ctx context.Context) (*artifact.Service, error) {
	return a.artifactsOn(a.store(ctx)) // finds the workspace too
}

// artifactsReading is the fabric for get and stats, which write only
// bookkeeping (the lookup's event, a key's pack, a path set's proof): the
// store is opened for reading, so that one on a read-only mount or a full
// disk still answers, without the bookkeeping. Where there is no store it
// is made, as before: a cold get may take the artifact from the team
// store into it.
func (a *app) artifactsReading(ctx context.Context) (*artifact.Service, error) {
	return a.artifactsOn(a.readOrMakeStore(ctx))
}

func (a *app) artifactsOn(st *store.Store, err error) (*artifact.Service, error) {
	if err != nil {
		return nil, err
	}
	return &artifact.Service{WS: a.ws, Store: st, Cwd: a.io.Cwd}, nil
}

func newArtifactCmd(a *app) *cobra.Command {
	var types []string
	for _, t := range artifact.Types {
		types = append(types, fmt.Sprintf("  %-26s %s", t.Name, t.Doc))
	}
	cmd := &cobra.Command{
		Use:   "artifact",
		Short: "A cache of derived artifacts, checked against every input they used",
		Long: `Store derived artifacts (repo maps, summaries, tool results…) with what they
were derived from, and get them back only while that still holds.

Types with defaults (any other name works, with none):
` + strings.Join(types, "\n"),
	}
	cmd.AddCommand(newArtifactPutCmd(a), newArtifactGetCmd(a), newArtifactInvalidateCmd(a), newArtifactStatsCmd(a))
	return cmd
}

func digestFlags(cmd *cobra.Command, d *artifact.Digests) {
	cmd.Flags().StringVar(&d.AgentVersion, "agent-version", "", "the agent's (or tool's) version")
	cmd.Flags().StringVar(&d.ConfigDigest, "config-digest", "", "digest of the configuration it depends on")
	cmd.Flags().StringVar(&d.PolicyDigest, "policy-digest", "", "digest of the policy it depends on")
	cmd.Flags().StringVar(&d.EntitlementDigest, "entitlement-digest", "", "digest of the entitlements it depends on")
}

func typeKey(cmd string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != 2 {
			return usagef("%s takes TYPE KEY", cmd)
		}
		return nil
	}
}

// artifactPutOptions are put's request and the flags that fill it.
type artifactPutOptions struct {
	req                          artifact.PutRequest
	ttl, contentFile, slicesFrom string
}

func newArtifactPutCmd(a *app) *cobra.Command {
	var o artifactPutOptions
	cmd := &cobra.Command{
		Use:   "put TYPE KEY [flags] < CONTENT",
		Short: "Store an artifact (or one slice of it) with its provenance",
		Long: `Store content (stdin, or --content-file) as TYPE KEY, recording the repository,
ref, commit and tree, the digest of every --dep file, and the versions and
digests given. --slice stores one named part; each slice has its own deps.

--slices-from FILE stores many slices in one call (one look at the work tree,
one transaction: all or none). FILE ("-" for stdin) holds JSON objects
{"slice": NAME, "deps": [PATH, …], "content": TEXT}, one per line or as one
array; the other flags apply to every slice.`,
		Example: `  freshctx artifact put file_summary src/auth.go < summary.md
  freshctx artifact put repo_map root --slice src/auth.go --dep src/auth.go --content-file entry.txt
  freshctx artifact put repo_map root --slices-from map.jsonl
  freshctx artifact put tool_result lint --dep a.go --dep b.go --agent-version golangci-1.61 < lint.txt`,
		Args: typeKey("put"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.req.Type, o.req.Key = args[0], args[1]
			if o.slicesFrom != "" {
				return a.putSlices(cmd, o)
			}
			res, err := a.runArtifactPut(cmd.Context(), o)
			if err != nil {
				return err
			}
			return a.render(res, func() error {
				_, err := fmt.Fprintf(a.io.Out, "stored %s %s%s · %d bytes · %d deps · %s@%s\n", res.Type, res.Key,
					sliceNote(res.Slice), res.Bytes, len(res.Deps), res.Ref, render.Short(res.Commit))
				return err
			})
		},
	}
	cmd.Flags().StringArrayVar(&o.req.Deps, "dep", nil, "a file the artifact was derived from, or a folder: everything under it (repeatable)")
	cmd.Flags().StringVar(&o.req.Slice, "slice", "", "store this named slice of the artifact")
	digestFlags(cmd, &o.req.Digests)
	cmd.Flags().StringVar(&o.ttl, "ttl", "", "maximum age (e.g. 12h, 7d; 0 for none; default: the type's)")
	cmd.Flags().StringVar(&o.contentFile, "content-file", "", "read the content from this file instead of stdin")
	cmd.Flags().StringVar(&o.slicesFrom, "slices-from", "", `store many slices from this file of JSON objects ("-" for stdin)`)
	cmd.Flags().StringVar(&o.req.Producer, "producer", "", "who made it (free text)")
	return cmd
}

// putRequest is the request with its TTL parsed.
func (o artifactPutOptions) putRequest() (artifact.PutRequest, error) {
	req := o.req
	d, err := artifact.ParseTTL(o.ttl)
	if err != nil {
		return req, usagef("--ttl: %v", err)
	}
	req.TTL = d
	return req, nil
}

// runArtifactPut stores the content (stdin, or --content-file) and queues
// the artifact for the team store.
func (a *app) runArtifactPut(ctx context.Context, o artifactPutOptions) (*artifact.PutResult, error) {
	req, err := o.putRequest()
	if err != nil {
		return nil, err
	}
	req.Content = a.io.In
	if o.contentFile != "" {
		f, err := a.open("--content-file", o.contentFile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		req.Content = f
	}
	svc, err := a.artifactService(ctx)
	if err != nil {
		return nil, err
	}
	res, err := svc.Put(ctx, req)
	if err != nil {
		return nil, err
	}
	a.warn(res.Warnings)
	a.queueArtifactForTeam(ctx, svc.Store, res.Repo, res.Ref, res.Type, res.Key)
	return res, nil
}

// putSlices is put --slices-from.
func (a *app) putSlices(cmd *cobra.Command, o artifactPutOptions) error {
	if o.req.Slice != "" || len(o.req.Deps) > 0 || o.contentFile != "" {
		return usagef("--slices-from gives each slice its name, deps and content: leave out --slice, --dep and --content-file")
	}
	req, err := o.putRequest()
	if err != nil {
		return err
	}
	r := a.io.In
	if o.slicesFrom != "-" {
		f, err := a.open("--slices-from", o.slicesFrom)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	in, err := artifact.ReadSlices(r)
	if err != nil {
		return fmt.Errorf("--slices-from %s: %w", o.slicesFrom, err)
	}
	svc, err := a.artifacts(cmd)
	if err != nil {
		return err
	}
	res, err := svc.PutSlices(cmd.Context(), req, in)
	if err != nil {
		return err
	}
	a.warn(res.Warnings)
	a.queueArtifactForTeam(cmd.Context(), svc.Store, res.Repo, res.Ref, res.Type, res.Key)
	return a.render(res, func() error {
		_, err := fmt.Fprintf(a.io.Out, "stored %s of %s %s · %d bytes · %s · %s@%s\n", nouns.Count(res.Slices, "slice", "slices"),
			res.Type, res.Key, res.Bytes, nouns.Count(res.Deps, "dep", "deps"), res.Ref, render.Short(res.Commit))
		return err
	})
}

// warn prints warnings on stderr, one line each.
func (a *app) warn(warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(a.io.Err, "freshctx: warning: %s\n", w)
	}
}

func sliceNote(s string) string {
	if s == "" {
		return ""
	}
	return " [" + s + "]"
}

func newArtifactGetCmd(a *app) *cobra.Command {
	var req artifact.GetRequest
	var mode string
	cmd := &cobra.Command{
		Use:   "get TYPE KEY [--mode strict|default|relaxed]",
		Short: "Get an artifact if it still holds: exit 0 hit, 3 stale, 4 cold",
		Long: `Look an artifact up and judge it against the workspace now. Prints the
content (a stale artifact's previous content too) and exits 0 for a hit, 3
when stale (stderr says which dimensions failed) and 4 when there is none.

  default  a new commit or tree only makes it a candidate: its files decide
  strict   any change of a tracked dimension, commit included, is stale
  relaxed  only its primary inputs (files, path set, commit of a change
           summary) count`,
		Args: typeKey("get"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Type, req.Key = args[0], args[1]
			out, err := a.runArtifactGet(cmd.Context(), req, mode)
			if err != nil {
				return err
			}
			if err := a.render(out, func() error { return printArtifact(a.io, out) }); err != nil {
				return err
			}
			switch out.Outcome {
			case artifact.Stale:
				return exitStatus{exitStale}
			case artifact.Cold:
				return exitStatus{exitCold}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&mode, "mode", "default", "strict, default or relaxed")
	digestFlags(cmd, &req.Digests)
	return cmd
}

// runArtifactGet looks the artifact up and, when there is none here, in
// the team store.
func (a *app) runArtifactGet(ctx context.Context, req artifact.GetRequest, mode string) (artifactGot, error) {
	m, err := artifact.ParseMode(mode)
	if err != nil {
		return artifactGot{}, usageError{err}
	}
	req.Mode = m
	svc, err := a.artifactsReading(ctx)
	if err != nil {
		return artifactGot{}, err
	}
	res, err := svc.Get(ctx, req)
	if err != nil {
		return artifactGot{}, err
	}
	// A team store's artifact is judged once it is kept here: a store
	// that cannot be written cannot take one.
	if res.Outcome == artifact.Cold && !svc.Store.ReadOnly() {
		if got := a.fromTeam(ctx, svc, req); got != nil && got.From != nil {
			return artifactGot{GetResult: got.Result, Team: got.From}, nil
		}
	}
	return artifactGot{GetResult: res}, nil
}

// artifactGot is what artifact get prints: the local engine's answer and,
// when a cold get took the artifact from the team store, whose it was.
type artifactGot struct {
	*artifact.GetResult
	Team *teamsync.Origin `json:"team,omitempty"`
}

func printArtifact(streams IO, r artifactGot) error {
	if err := render.ArtifactOutcome(streams.Err, r.GetResult); err != nil {
		return err
	}
	if r.Team != nil {
		if err := render.ArtifactFromTeam(streams.Err, r.Team, r.Outcome == artifact.Hit); err != nil {
			return err
		}
	}
	return render.ArtifactContent(streams.Content(), r.GetResult)
}

func newArtifactInvalidateCmd(a *app) *cobra.Command {
	var req artifact.InvalidateRequest
	cmd := &cobra.Command{
		Use:   "invalidate [--type T] [--key K] [--path-prefix P]",
		Short: "Force a refresh: the next get of the selected artifacts is stale",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if req.Type == "" && req.Key == "" && req.PathPrefix == "" {
				return usagef("invalidate needs --type, --key or --path-prefix")
			}
			svc, err := a.artifacts(cmd)
			if err != nil {
				return err
			}
			res, err := svc.Invalidate(cmd.Context(), req)
			if err != nil {
				return err
			}
			return a.render(res, func() error {
				_, err := fmt.Fprintf(a.io.Out, "invalidated %s\n", nouns.Count(res.Invalidated, "artifact", "artifacts"))
				return err
			})
		},
	}
	cmd.Flags().StringVar(&req.Type, "type", "", "artifacts of this type")
	cmd.Flags().StringVar(&req.Key, "key", "", "artifacts with this key")
	cmd.Flags().StringVar(&req.PathPrefix, "path-prefix", "", "artifacts with an input whose path starts with this text (src/auth: src/auth.go, src/auth/…, src/authz.go; end with / for a folder only)")
	return cmd
}

func newArtifactStatsCmd(a *app) *cobra.Command {
	var since string
	var prometheus bool
	cmd := &cobra.Command{
		Use:   "stats [--since DUR] [--prometheus]",
		Short: "Hit, stale and cold lookups, rates, and regeneration latency",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var window time.Duration
			if since != "" {
				d, err := config.ParseAge(since)
				if err != nil {
					return usagef("--since: %v", err)
				}
				window = d
			}
			if prometheus && a.json {
				return usagef("--prometheus and --json are two formats; pick one")
			}
			svc, err := a.artifactsReading(cmd.Context())
			if err != nil {
				return err
			}
			st, err := svc.Stats(cmd.Context(), window)
			if err != nil {
				return err
			}
			if prometheus {
				return st.WritePrometheus(a.io.Out)
			}
			return a.render(st, func() error { return render.ArtifactStats(a.io.Out, st) })
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "only this recent window (e.g. 24h, 7d)")
	cmd.Flags().BoolVar(&prometheus, "prometheus", false, "print the Prometheus text exposition format")
	return cmd
}
