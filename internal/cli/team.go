package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/freshctx/freshctx/internal/artifact"
	"github.com/freshctx/freshctx/internal/config"
	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/registry"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/team"
	"github.com/freshctx/freshctx/internal/teamsync"
)

func newTeamCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "team",
		Short: "Share records with a team through PostgreSQL",
		Long: `A team store is a PostgreSQL database the team's machines and CI share.
run and capture queue their records for it (team.publish: failures by
default, all or none) and a background process sends them; recall --team
searches the team's records of this repository and labels each by the
bytes of this work tree: fresh only when every file it names hashes here
to what the publisher hashed.

The URL comes from FRESHCTX_TEAM, else the config (team.url). The password
never goes in either: PostgreSQL reads it from ~/.pgpass or PGPASSWORD, and
freshctx never prints it. sslmode=verify-full in the URL checks the
server's certificate.

Records are signed by a machine that holds the team's private key
(FRESHCTX_TEAM_SIGNING_KEY: give it to CI only); readers check them with
the public key (team.verify_key), and with team.require_signed ignore the
rest. team key makes a key pair.`,
	}
	cmd.AddCommand(newTeamInitCmd(a), newTeamStatusCmd(a), newTeamPublishCmd(a), newTeamKeyCmd(a))
	return cmd
}

func newTeamInitCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "init URL",
		Short: "Create or update the team store's schema, and use it from this store",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := a.runTeamInit(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.render(res, func() error {
				_, err := fmt.Fprintf(a.io.Out, "team store %s: schema version %d; this store publishes to it (team.publish decides what)\n",
					res.URL, res.SchemaVersion)
				return err
			})
		},
	}
}

// teamInit is what team init reports.
type teamInit struct {
	URL           string `json:"url"` // without a password, were one given
	SchemaVersion int    `json:"schema_version"`
}

// runTeamInit creates or updates the team store's schema at url and sets
// this store to publish to it. A URL holding a password is refused: it
// would be stored.
func (a *app) runTeamInit(ctx context.Context, url string) (teamInit, error) {
	if team.HasPassword(url) {
		return teamInit{}, usagef("the URL holds a password, which freshctx never stores: put it in ~/.pgpass (or PGPASSWORD) and give the URL without it")
	}
	st, err := a.store(ctx)
	if err != nil {
		return teamInit{}, err
	}
	ts, err := team.OpenWith(ctx, url, team.Asked)
	if err != nil {
		return teamInit{}, err
	}
	defer ts.Close()
	version, err := ts.Migrate(ctx)
	if err != nil {
		return teamInit{}, err
	}
	if _, err := config.Set(ctx, st, "team.url", url); err != nil {
		return teamInit{}, err
	}
	return teamInit{URL: team.Redacted(url), SchemaVersion: version}, nil
}

// teamStatus is what team status reports.
type teamStatus struct {
	URL           string  `json:"url"`
	Reachable     bool    `json:"reachable"`
	Error         string  `json:"error,omitempty"`
	LatencyMS     float64 `json:"latency_ms,omitempty"`
	SchemaVersion int     `json:"schema_version"`
	Records       int     `json:"records"`
	Signed        int     `json:"signed"`
	// Ignored counts, of the newest records, those recall leaves out for
	// want of a valid signature (team.require_signed).
	Ignored   int `json:"ignored"`
	Artifacts int `json:"artifacts"`
	// ArtifactsSigned and ArtifactsIgnored are as Signed and Ignored, of
	// the artifacts (an artifact that does not say what its id says is
	// ignored too).
	ArtifactsSigned  int    `json:"artifacts_signed"`
	ArtifactsIgnored int    `json:"artifacts_ignored"`
	Pending          int    `json:"pending"`
	Publish          string `json:"publish"`
	RequireSigned    bool   `json:"require_signed"`
}

func newTeamStatusCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Whether the team store answers, how fast, and what is published and pending",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, s, err := a.teamSettingsReading(cmd.Context())
			if err != nil {
				return err
			}
			out := teamStatus{URL: team.Redacted(s.URL), Publish: s.Publish, RequireSigned: s.RequireSigned}
			out.Pending, _ = teamsync.Pending(cmd.Context(), st)
			if err := fillStatus(cmd.Context(), a, s, &out); err != nil {
				out.Error = err.Error()
			}
			return a.render(out, func() error { return printTeamStatus(a, out) })
		},
	}
}

func fillStatus(ctx context.Context, a *app, s teamsync.Settings, out *teamStatus) error {
	ts, err := team.OpenWith(ctx, s.URL, team.Asked)
	if err != nil {
		return err
	}
	defer ts.Close()
	out.Reachable = true
	d, err := ts.Latency(ctx)
	if err != nil {
		return err
	}
	out.LatencyMS = float64(d.Microseconds()) / 1000
	if out.SchemaVersion, err = ts.Version(ctx); err != nil {
		return err
	}
	ws, err := a.workspace()
	if err != nil || ws.Git == nil {
		return err
	}
	repo, err := ws.Git.RepoID(ctx)
	if err != nil || repo == "" {
		return err
	}
	c, err := ts.Count(ctx, repo)
	out.Records, out.Signed = c.Records, c.Signed
	if err != nil {
		return err
	}
	if c, err = ts.CountArtifacts(ctx, repo); err != nil {
		return err
	}
	out.Artifacts, out.ArtifactsSigned = c.Records, c.Signed
	if out.ArtifactsIgnored, err = teamsync.UnsignedArtifacts(ctx, ts, repo, s.VerifyKey, s.RequireSigned); err != nil {
		return err
	}
	if !s.RequireSigned {
		return nil
	}
	out.Ignored, err = teamsync.Unsigned(ctx, ts, repo, s.VerifyKey)
	return err
}

func printTeamStatus(a *app, s teamStatus) error {
	w := a.io.Out
	if !s.Reachable {
		fmt.Fprintf(w, "team store %s: not reachable (%s)\n", s.URL, s.Error)
	} else {
		fmt.Fprintf(w, "team store %s: reachable, %.1f ms a round trip, schema version %d\n", s.URL, s.LatencyMS, s.SchemaVersion)
		fmt.Fprintf(w, "this repository: %d records shared, %d of them signed", s.Records, s.Signed)
		if s.RequireSigned {
			fmt.Fprintf(w, "; %d ignored (no valid signature)", s.Ignored)
		}
		fmt.Fprintf(w, "\nthis repository: %d artifacts shared, %d of them signed", s.Artifacts, s.ArtifactsSigned)
		if s.ArtifactsIgnored > 0 || s.RequireSigned {
			fmt.Fprintf(w, "; %d ignored (no valid signature, or not what their hashes say)", s.ArtifactsIgnored)
		}
		fmt.Fprintln(w)
	}
	_, err := fmt.Fprintf(w, "this store: %d records waiting to be published (team.publish = %s, team.require_signed = %v)\n",
		s.Pending, s.Publish, s.RequireSigned)
	return err
}

func newTeamPublishCmd(a *app) *cobra.Command {
	var since time.Duration
	var background bool
	cmd := &cobra.Command{
		Use:   "publish [--since DUR]",
		Short: "Send the records waiting for the team store (with --since, every record that recent too)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := a.runTeamPublish(cmd.Context(), since, !background)
			if background {
				return nil // the queue keeps what was not sent; the next run tries again
			}
			if err != nil {
				return fmt.Errorf("%w (%d records still waiting; they are sent with the next publish)", err, res.Pending)
			}
			return a.render(res, func() error {
				_, err := fmt.Fprintf(a.io.Out, "published %d records (%d new to the team store), %d summaries and %d artifacts; %d waiting\n",
					res.Sent, res.Published, res.Summaries, res.Artifacts, res.Pending)
				return err
			})
		},
	}
	cmd.Flags().DurationVar(&since, "since", 0, "also publish every record made in this long (24h, 30m), whatever team.publish says")
	cmd.Flags().BoolVar(&background, "background", false, "say nothing (run starts it so)")
	cmd.Flags().MarkHidden("background")
	return cmd
}

// runTeamPublish sends what waits for the team store, and with since
// every record that recent too; wait says whether to wait for a publisher
// already at work rather than leave the queue to it.
func (a *app) runTeamPublish(ctx context.Context, since time.Duration, wait bool) (teamsync.PublishResult, error) {
	st, s, err := a.teamSettings(ctx)
	if err != nil {
		return teamsync.PublishResult{}, err
	}
	if since > 0 {
		if _, err := teamsync.EnqueueSince(ctx, st, since); err != nil {
			return teamsync.PublishResult{}, err
		}
	}
	svc, err := a.records(ctx)
	if err != nil {
		return teamsync.PublishResult{}, err
	}
	reg, err := a.registryService(ctx)
	if err != nil {
		return teamsync.PublishResult{}, err
	}
	arts, err := a.artifactService(ctx)
	if err != nil {
		return teamsync.PublishResult{}, err
	}
	return teamsync.Publish(ctx, st, teamsync.Sources{Records: svc, Registry: reg, Artifacts: arts}, s, wait)
}

func newTeamKeyCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "key",
		Short: "Make a signing key pair: the private half for CI, the public half for team.verify_key",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			seed, pub, err := teamsync.NewKey()
			if err != nil {
				return err
			}
			return a.render(map[string]string{"signing_key": seed, "verify_key": pub}, func() error {
				_, err := fmt.Fprintf(a.io.Out, "FRESHCTX_TEAM_SIGNING_KEY=%s   # CI's secret: signs what it publishes\n"+
					"freshctx config team.verify_key %s   # every machine: checks signatures\n", seed, pub)
				return err
			})
		},
	}
}

// queueForTeam queues a new record for the team store, when one is
// configured and team.publish takes it, and starts the publisher. A team
// store that is down costs the command nothing: the record waits.
func (a *app) queueForTeam(ctx context.Context, svc *records.Service, rec *records.Record) {
	if svc == nil || svc.Store == nil || rec == nil || rec.ID == 0 {
		return
	}
	s, err := teamsync.Load(ctx, svc.Store)
	if err != nil || s.URL == "" {
		return
	}
	if queued, err := teamsync.Enqueue(ctx, svc.Store, s, rec); err != nil || !queued {
		return
	}
	a.startTeamPublisher(ctx, svc.Store)
}

// queueArtifactForTeam queues an artifact just put for the team store
// (teamsync.QueueArtifact).
func (a *app) queueArtifactForTeam(ctx context.Context, st *store.Store, repo, ref, typ, key string) {
	if self, err := os.Executable(); err == nil && a.ws != nil {
		teamsync.QueueArtifact(ctx, st, self, a.ws.Root, a.io.Env, repo, ref, typ, key)
	}
}

// fromTeam asks the team store for an artifact a local get found cold
// (teamsync.ColdGet). A team store that fails is said once on stderr; the
// get stays cold.
func (a *app) fromTeam(ctx context.Context, svc *artifact.Service, req artifact.GetRequest) *teamsync.Fetched {
	got, err := teamsync.ColdGet(ctx, svc, req)
	if err != nil {
		fmt.Fprintf(a.io.Err, "freshctx: team store: %v (the get stays local)\n", err)
	}
	return got
}

// startTeamPublisher starts a publisher in the background when a team
// store is configured; a failure to start costs the command nothing (the
// next one tries again).
func (a *app) startTeamPublisher(ctx context.Context, st *store.Store) {
	s, err := teamsync.Load(ctx, st)
	if err != nil || s.URL == "" {
		return
	}
	self, err := os.Executable()
	if err != nil || a.ws == nil {
		return
	}
	teamsync.StartPublisher(self, a.ws.Root, st.Path(), a.io.Env, s)
}

// teamFill is what registry sync took from the team store.
type teamFill struct {
	teamsync.FillResult
	Error string `json:"error,omitempty"`
}

func (t *teamFill) print(a *app) error {
	var err error
	switch {
	case t.Error != "":
		_, err = fmt.Fprintf(a.io.Out, "team store: no summaries taken (%s)\n", t.Error)
	case t.Filled > 0 || t.Ignored > 0:
		_, err = fmt.Fprintf(a.io.Out, "team store: %d summaries of the same bytes taken (%d unsigned left out)\n", t.Filled, t.Ignored)
	}
	return err
}

// fillFromTeam gives the registry's files without a current summary a
// teammate's summary of the same bytes, when a team store is configured;
// nil when none is. A team store that fails is said, not an error.
func (a *app) fillFromTeam(ctx context.Context, reg *registry.Service) *teamFill {
	s, err := teamsync.Load(ctx, reg.Store)
	if err != nil || s.URL == "" {
		return nil
	}
	res, err := teamsync.FillSummaries(ctx, reg, s)
	out := &teamFill{FillResult: res}
	if err != nil {
		out.Error = err.Error()
	}
	return out
}

// teamSettings opens the store and reads its team settings; no team store
// configured is team.ErrNotConfigured.
func (a *app) teamSettings(ctx context.Context) (*store.Store, teamsync.Settings, error) {
	st, err := a.store(ctx)
	return a.teamSettingsOf(ctx, st, err)
}

// teamSettingsReading is teamSettings for team status and recall --team,
// which only read the store: one on a read-only mount or a full disk
// answers too. Where there is none it is made: FRESHCTX_TEAM alone may
// name a team store.
func (a *app) teamSettingsReading(ctx context.Context) (*store.Store, teamsync.Settings, error) {
	st, err := a.readOrMakeStore(ctx)
	return a.teamSettingsOf(ctx, st, err)
}

func (a *app) teamSettingsOf(ctx context.Context, st *store.Store, err error) (*store.Store, teamsync.Settings, error) {
	if err != nil {
		return nil, teamsync.Settings{}, err
	}
	s, err := teamsync.Load(ctx, st)
	if err == nil && s.URL == "" {
		err = team.ErrNotConfigured
	}
	return st, s, err
}
