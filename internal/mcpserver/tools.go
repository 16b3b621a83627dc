package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/freshctx/freshctx/internal/artifact"
	"github.com/freshctx/freshctx/internal/compress"
	"github.com/freshctx/freshctx/internal/config"
	"github.com/freshctx/freshctx/internal/integrate"
	"github.com/freshctx/freshctx/internal/nouns"
	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/registry"
	"github.com/freshctx/freshctx/internal/render"
	"github.com/freshctx/freshctx/internal/teamsync"
)

// Schemas are written by hand to stay short: every tool together, each
// property with a one-line description, must cost at most 1,000 o200k
// tokens in tools/list (TestToolListIsSmall).
func prop(typ, desc string) string {
	return fmt.Sprintf(`{"type":%q,"description":%q}`, typ, desc)
}

func str(desc string) string  { return prop("string", desc) }
func num(desc string) string  { return prop("integer", desc) }
func flag(desc string) string { return prop("boolean", desc) }
func strs(desc string) string {
	return fmt.Sprintf(`{"type":"array","items":{"type":"string"},"description":%q}`, desc)
}
func enum(desc string, values ...string) string {
	v, _ := json.Marshal(values)
	return fmt.Sprintf(`{"enum":%s,"description":%q}`, v, desc)
}

func schema(required []string, props ...string) string {
	if len(props) == 0 {
		return `{"type":"object"}`
	}
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := 0; i+1 < len(props); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", props[i], props[i+1])
	}
	b.WriteString(`}`)
	if len(required) > 0 {
		r, _ := json.Marshal(required)
		fmt.Fprintf(&b, `,"required":%s`, r)
	}
	b.WriteString(`}`)
	return b.String()
}

var digestProps = []string{"agent_version", str("producer"), "config_digest", str("config"),
	"policy_digest", str("policy"), "entitlement_digest", str("entitlement")}

func allTools() []tool {
	path := str("path or path:N-M")
	return []tool{
		{"run", "Run a shell command; returns a digest with every error and file:line.",
			schema([]string{"command"}, "command", str("shell command line"),
				"intent", enum("what to keep", "summary", "errors", "tests", "raw"),
				"label", str("tag"), "max_tokens", num("digest cap")), callRun},
		{"recall", "Search command records; flags changed files.",
			schema(nil, "query", str("search text"), "files", strs("file filter"), "limit", num("max results")), callRecall},
		{"list", "Recent command records with freshness.", schema(nil, "limit", num("max records")), callList},
		{"stats", "Records kept and tokens saved.", schema(nil), callStats},
		{"show", "A record's digest and freshness.",
			schema([]string{"id"}, "id", num("record id"), "raw", flag("full output")), callShow},
		{"read", "Read a file; unchanged or a diff if seen.",
			schema([]string{"path"}, "path", path, "offset", num("first line"), "limit", num("line count")), callRead},
		{"session_compact", "After a compaction: reads start fresh.", schema(nil), callCompact},
		{"session_refresh", "The next read returns content.", schema([]string{"path"}, "path", path), callRefresh},
		{"session_status", "What reads trust; tokens saved.", schema(nil), callStatus},
		{"registry_sync", "Update the file registry.", schema(nil), callSync},
		{"registry_verify", "Changes since the last verify.", schema(nil, "apply", flag("save verdicts")), callVerify},
		{"registry_list", "Registered files and their summaries.", schema(nil, "stale", flag("stale only")), callRegistryList},
		{"registry_summarize", "Store file summaries.",
			schema([]string{"items"}, "items", `{"type":"array","items":{"type":"object","properties":{"path":{"type":"string"},"summary":{"type":"string"}}},"description":"summaries"}`), callSummarize},
		{"registry_close", "Re-digest a commit's files.", schema(nil, "commit", str("default HEAD")), callClose},
		{"artifact_get", "A cached artifact: hit, stale or cold.",
			schema([]string{"type", "key"}, append([]string{"type", str("kind"), "key", str("name"),
				"mode", enum("policy", "strict", "default", "relaxed")}, digestProps...)...), callArtifactGet},
		{"artifact_put", "Cache an artifact and its inputs.",
			schema([]string{"type", "key", "content"}, append([]string{"type", str("kind"), "key", str("name"),
				"content", str("body"), "deps", strs("input files"), "slice", str("part name"), "ttl", str("lifetime")}, digestProps...)...), callArtifactPut},
		{"artifact_invalidate", "Force refresh of artifacts.",
			schema(nil, "type", str("kind"), "key", str("name"), "path_prefix", str("files under")), callInvalidate},
		{"artifact_stats", "Artifact hit, stale and cold rates.", schema(nil, "since", str("window")), callArtifactStats},
	}
}

func callRun(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in struct {
		Command, Intent, Label string
		MaxTokens              int `json:"max_tokens"`
	}
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	if strings.TrimSpace(in.Command) == "" {
		return "", nil, errors.New("run: command is empty")
	}
	intent, err := compress.ParseIntent(in.Intent)
	if err != nil {
		return "", nil, err
	}
	// Its own process group: a cancelled call ends the command and all it
	// started, and what ran is still recorded.
	rec, err := s.records.Run(ctx, records.RunRequest{
		Options: records.Options{Label: in.Label, Intent: intent, MaxTokens: in.MaxTokens, Notify: progressFrom(ctx), Command: in.Command},
		Argv:    []string{"sh", "-c", in.Command}, Stdin: strings.NewReader(""), Env: s.opt.Env, OwnGroup: true,
	})
	if err != nil {
		return "", nil, err
	}
	return text(func(w io.Writer) error { return render.Record(w, rec) }), rec, nil
}

func callRecall(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in struct {
		Query string
		Files []string
		Limit int
	}
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	hits, err := s.records.Recall(ctx, records.RecallRequest{Query: in.Query, Files: in.Files, Limit: in.Limit})
	if err != nil {
		return "", nil, err
	}
	return text(func(w io.Writer) error { return render.Hits(w, hits) }), map[string]any{"results": hits}, nil
}

func callList(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in struct{ Limit int }
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	if in.Limit <= 0 {
		in.Limit = 20
	}
	recs, err := s.records.List(ctx, in.Limit)
	if err != nil {
		return "", nil, err
	}
	items := render.ListItems(recs)
	return text(func(w io.Writer) error { return render.List(w, items) }), map[string]any{"records": items}, nil
}

func callStats(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	st, err := s.records.Stats(ctx)
	if err != nil {
		return "", nil, err
	}
	return text(func(w io.Writer) error { return render.Stats(w, st) }), st, nil
}

func callRegistryList(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in struct{ Stale bool }
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	res, err := s.registry.ListCurrent(ctx, in.Stale)
	if err != nil {
		return "", nil, err
	}
	return text(func(w io.Writer) error { return render.RegistryList(w, res) }), res, nil
}

func callShow(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in struct {
		ID  int64
		Raw bool
	}
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	rec, err := s.records.Show(ctx, in.ID)
	if err != nil {
		return "", nil, err
	}
	if !in.Raw {
		return text(func(w io.Writer) error { return render.Show(w, rec) }), rec, nil
	}
	var b strings.Builder
	for _, st := range []records.Stream{records.Stdout, records.Stderr} {
		rc, err := s.records.Raw(ctx, in.ID, st)
		if err != nil {
			return "", nil, err
		}
		_, err = io.Copy(&b, io.LimitReader(rc, maxRaw-int64(b.Len())))
		rc.Close()
		if err != nil {
			return "", nil, err
		}
	}
	out := strings.ToValidUTF8(b.String(), "\uFFFD")
	if rec.RawBytes > maxRaw {
		out += fmt.Sprintf("\n[first %d of %d bytes; the rest: freshctx show %d --raw]", maxRaw, rec.RawBytes, in.ID)
	}
	return out, rec, nil
}

// maxRaw bounds the raw output a show returns to a model.
const maxRaw = 256 << 10

func callRead(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in struct {
		Path          string
		Offset, Limit int
		// Session is left out of the schema: the agent's hook adds it
		// (integrate), the model does not choose it.
		Session string
		// What a client that keeps its own tree adds (clientTree).
		clientTree
		Seen      *string
		SeenTotal int `json:"seen_total"`
		Form      string
	}
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	session, err := s.readSession(ctx, in.Session)
	if err != nil {
		return "", nil, err
	}
	if s.deliveries.takePoison(session) {
		if _, err := s.readcache.Compact(ctx, session); err != nil {
			s.deliveries.poison(session)
			return "", nil, fmt.Errorf("a cancelled read could not be taken back, nor a barrier put: %w", err)
		}
	}
	req := readcache.ReadRequest{Session: session, Target: in.Path, Offset: in.Offset, Limit: in.Limit}
	if in.Form != "" {
		if req.Form = integrate.FormNamed(in.Form); req.Form == nil || in.Session == "" || in.Seen == nil {
			return "", nil, fmt.Errorf("form %q: a client form needs a known form, the session and what was seen", in.Form)
		}
		req.Seen, req.SeenTotal, req.ClientKey = in.Seen, in.SeenTotal, in.Key
		if err := in.follow(ctx, s.readcache, session); err != nil {
			return "", nil, err
		}
	}
	rc := s.readService(ctx)
	if req.Form != nil {
		// The client's extension shows no counts: session_status makes them.
		later := *rc
		later.TokensLater = true
		rc = &later
	}
	res, err := rc.Read(ctx, req)
	if err != nil {
		if req.Seen != nil { // the model holds what its client read: nobody can vouch for it
			err = errors.Join(err, s.readcache.Forget(ctx, session, in.Path))
		}
		return "", nil, err
	}
	// It counts as delivered once the connection writes it out (delivery.go).
	return text(func(w io.Writer) error { return render.ReadText(w, res) }), res, nil
}

// sessionArg is the hidden session argument the agent's hook adds to the
// read and session tools (integrate): the session the context's reads go to.
type sessionArg struct{ Session string }

// named is the session the hook named, else the connection's own.
func (a sessionArg) named(s *Server) string {
	if a.Session != "" {
		return a.Session
	}
	return s.session
}

func callCompact(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in sessionArg
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	res, err := s.readcache.Compact(ctx, in.named(s))
	if err != nil {
		return "", nil, err
	}
	return text(func(w io.Writer) error { return render.Session(w, res) }), res, nil
}

func callRefresh(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in struct {
		Path string
		sessionArg
		clientTree
		// Edited: the model changed the file itself (a client's edit
		// tool): it is marked, not forgotten (readcache.Edited).
		Edited bool
	}
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	session := in.named(s)
	if err := in.follow(ctx, s.readcache, session); err != nil {
		return "", nil, err
	}
	if in.Edited {
		if err := s.readcache.Edited(ctx, session, in.Path); err != nil {
			return "", nil, err
		}
		leaf, err := s.readcache.Key(ctx, session, in.Key)
		if err != nil {
			return "", nil, err
		}
		res := &readcache.SessionResult{Session: session, Leaf: leaf}
		return text(func(w io.Writer) error { return render.Session(w, res) }), res, nil
	}
	res, err := s.readcache.Refresh(ctx, session, in.Path)
	if err != nil {
		return "", nil, err
	}
	if _, err := s.readcache.Key(ctx, session, in.Key); err != nil {
		return "", nil, err
	}
	return text(func(w io.Writer) error { return render.Session(w, res) }), res, nil
}

func callStatus(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in sessionArg
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	st, err := s.readcache.Status(ctx, in.named(s))
	if err != nil {
		return "", nil, err
	}
	return text(func(w io.Writer) error { return render.Status(w, st) }), st, nil
}

func callSync(ctx context.Context, s *Server, _ json.RawMessage) (string, any, error) {
	res, err := s.registry.Sync(ctx)
	if err != nil {
		return "", nil, err
	}
	return text(func(w io.Writer) error { return render.Sync(w, res) }), res, nil
}

func callVerify(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in struct{ Apply bool }
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	res, err := s.registry.Verify(ctx, in.Apply)
	if err != nil {
		return "", nil, err
	}
	return text(func(w io.Writer) error { return render.Verify(w, res) }), res, nil
}

func callSummarize(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in struct{ Items []registry.Summary }
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	for i := range in.Items {
		in.Items[i].By = registry.ByAgent // an MCP client is an agent
	}
	res, err := s.registry.Summarize(ctx, in.Items)
	if err != nil {
		return "", nil, err
	}
	return "summarized " + nouns.Count(len(res.Updated), "file", "files") + "\n", res, nil
}

func callClose(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in struct{ Commit string }
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	res, err := s.registry.Close(ctx, in.Commit)
	if err != nil {
		return "", nil, err
	}
	return text(func(w io.Writer) error { return render.Close(w, res) }), res, nil
}

type digestArgs struct {
	AgentVersion      string `json:"agent_version"`
	ConfigDigest      string `json:"config_digest"`
	PolicyDigest      string `json:"policy_digest"`
	EntitlementDigest string `json:"entitlement_digest"`
}

func (d digestArgs) digests() artifact.Digests { return artifact.Digests(d) }

func callArtifactGet(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in struct {
		Type, Key, Mode string
		digestArgs
	}
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	mode, err := artifact.ParseMode(in.Mode)
	if err != nil {
		return "", nil, err
	}
	req := artifact.GetRequest{Type: in.Type, Key: in.Key, Mode: mode, Digests: in.digests()}
	res, err := s.artifacts.Get(ctx, req)
	if err != nil {
		return "", nil, err
	}
	out := artifactGot{GetResult: res}
	var teamErr error
	if res.Outcome == artifact.Cold {
		var got *teamsync.Fetched
		if got, teamErr = teamsync.ColdGet(ctx, s.artifacts, req); got != nil && got.From != nil {
			res, out = got.Result, artifactGot{GetResult: got.Result, Team: got.From}
		}
	}
	return text(func(w io.Writer) error {
		fmt.Fprintf(w, "%s\n", res.Outcome)
		if teamErr != nil {
			fmt.Fprintf(w, "team store: %v (the get stays local)\n", teamErr)
		}
		if err := render.ArtifactOutcome(w, res); err != nil {
			return err
		}
		if out.Team != nil {
			if err := render.ArtifactFromTeam(w, out.Team, res.Outcome == artifact.Hit); err != nil {
				return err
			}
		}
		return render.ArtifactContent(w, res)
	}), out, nil
}

// artifactGot is the local engine's answer and, when a cold get took the
// artifact from the team store, whose it was.
type artifactGot struct {
	*artifact.GetResult
	Team *teamsync.Origin `json:"team,omitempty"`
}

func callArtifactPut(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in struct {
		Type, Key, Content, Slice, TTL string
		Deps                           []string
		digestArgs
	}
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	req := artifact.PutRequest{Type: in.Type, Key: in.Key, Slice: in.Slice, Deps: in.Deps, Digests: in.digests(),
		Content: strings.NewReader(in.Content), Producer: "mcp"}
	ttl, err := artifact.ParseTTL(in.TTL)
	if err != nil {
		return "", nil, fmt.Errorf("ttl: %w", err)
	}
	req.TTL = ttl
	res, err := s.artifacts.Put(ctx, req)
	if err != nil {
		return "", nil, err
	}
	if self, err := os.Executable(); err == nil {
		teamsync.QueueArtifact(ctx, s.artifacts.Store, self, s.artifacts.WS.Root, os.Environ(), res.Repo, res.Ref, res.Type, res.Key)
	}
	return fmt.Sprintf("stored %s %s · %d bytes · %d deps\n", res.Type, res.Key, res.Bytes, len(res.Deps)), res, nil
}

func callInvalidate(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in struct {
		Type, Key  string
		PathPrefix string `json:"path_prefix"`
	}
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	res, err := s.artifacts.Invalidate(ctx, artifact.InvalidateRequest{Type: in.Type, Key: in.Key, PathPrefix: in.PathPrefix})
	if err != nil {
		return "", nil, err
	}
	return "invalidated " + nouns.Count(res.Invalidated, "artifact", "artifacts") + "\n", res, nil
}

func callArtifactStats(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in struct{ Since string }
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	var window time.Duration
	if in.Since != "" {
		d, err := config.ParseAge(in.Since)
		if err != nil {
			return "", nil, fmt.Errorf("since: %w", err)
		}
		window = d
	}
	st, err := s.artifacts.Stats(ctx, window)
	if err != nil {
		return "", nil, err
	}
	return text(func(w io.Writer) error { return render.ArtifactStats(w, st) }), st, nil
}
