package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/freshctx/freshctx/internal/compress"
	"github.com/freshctx/freshctx/internal/config"
	"github.com/freshctx/freshctx/internal/fabric"
	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/registry"
	"github.com/freshctx/freshctx/internal/render"
)

// Schemas are written by hand to stay short: every tool together must cost
// at most 2,500 tokens in tools/list.
const (
	str  = `{"type":"string"}`
	num  = `{"type":"integer"}`
	flag = `{"type":"boolean"}`
	strs = `{"type":"array","items":{"type":"string"}}`
)

func schema(required []string, props ...string) string {
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

var digestProps = []string{"agent_version", str, "config_digest", str, "policy_digest", str, "entitlement_digest", str}

func allTools() []tool {
	return []tool{
		{"run", "Run a shell command in the repo root; keep all output, return a digest with every error and file:line.",
			schema([]string{"command"}, "command", str, "intent", `{"enum":["summary","errors","tests","raw"]}`, "label", str, "max_tokens", num), callRun},
		{"recall", "Find earlier command records; says which files changed since.",
			schema(nil, "query", str, "files", strs, "limit", num), callRecall},
		{"show", "A record's digest and freshness; raw:true for its full output.",
			schema([]string{"id"}, "id", num, "raw", flag), callShow},
		{"read", "Read a file or path:N-M; answers unchanged or a diff when you have seen it.",
			schema([]string{"path"}, "path", str, "offset", num, "limit", num), callRead},
		{"session_compact", "Call after compacting context: reads start fresh.", schema(nil), callCompact},
		{"session_refresh", "Force the next read of path[:N-M] to return content.", schema([]string{"path"}, "path", str), callRefresh},
		{"session_status", "What this session's reads trust, and tokens saved.", schema(nil), callStatus},
		{"registry_sync", "Bring the file registry up to date (trust, verify or bootstrap).", schema(nil), callSync},
		{"registry_verify", "Verdicts on what changed since the registry was verified.", schema(nil, "apply", flag), callVerify},
		{"registry_summarize", "Store file summaries.",
			schema([]string{"items"}, "items", `{"type":"array","items":{"type":"object","properties":{"path":{"type":"string"},"summary":{"type":"string"}}}}`), callSummarize},
		{"registry_close", "After committing: re-digest touched files; lists those needing a summary.", schema(nil, "commit", str), callClose},
		{"artifact_get", "Get a cached artifact if its inputs still hold: hit, stale or cold.",
			schema([]string{"type", "key"}, append([]string{"type", str, "key", str, "mode", `{"enum":["strict","default","relaxed"]}`}, digestProps...)...), callArtifactGet},
		{"artifact_put", "Cache an artifact with the files it was derived from.",
			schema([]string{"type", "key", "content"}, append([]string{"type", str, "key", str, "content", str, "deps", strs, "slice", str, "ttl", str}, digestProps...)...), callArtifactPut},
		{"artifact_invalidate", "Force refresh of artifacts by type, key or path prefix.",
			schema(nil, "type", str, "key", str, "path_prefix", str), callInvalidate},
		{"artifact_stats", "Artifact hit/stale/cold rates and regeneration latency.", schema(nil, "since", str), callArtifactStats},
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
		Options: records.Options{Label: in.Label, Intent: intent, MaxTokens: in.MaxTokens, Notify: progressFrom(ctx)},
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
	}
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	res, err := s.readcache.Read(ctx, readcache.ReadRequest{Session: s.session, Target: in.Path, Offset: in.Offset, Limit: in.Limit})
	if err != nil {
		return "", nil, err
	}
	// The answer goes out with this result: it counts as delivered.
	if err := s.readcache.Delivered(ctx, res); err != nil {
		return "", nil, err
	}
	return text(func(w io.Writer) error { return render.ReadText(w, res) }), res, nil
}

func callCompact(ctx context.Context, s *Server, _ json.RawMessage) (string, any, error) {
	res, err := s.readcache.Compact(ctx, s.session)
	if err != nil {
		return "", nil, err
	}
	return text(func(w io.Writer) error { return render.Session(w, res) }), res, nil
}

func callRefresh(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in struct{ Path string }
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	res, err := s.readcache.Refresh(ctx, s.session, in.Path)
	if err != nil {
		return "", nil, err
	}
	return text(func(w io.Writer) error { return render.Session(w, res) }), res, nil
}

func callStatus(ctx context.Context, s *Server, _ json.RawMessage) (string, any, error) {
	st, err := s.readcache.Status(ctx, s.session)
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
	res, err := s.registry.Summarize(ctx, in.Items)
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("summarized %d files\n", len(res.Updated)), res, nil
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

func (d digestArgs) digests() fabric.Digests { return fabric.Digests(d) }

func callArtifactGet(ctx context.Context, s *Server, raw json.RawMessage) (string, any, error) {
	var in struct {
		Type, Key, Mode string
		digestArgs
	}
	if err := decode(raw, &in); err != nil {
		return "", nil, err
	}
	mode, err := fabric.ParseMode(in.Mode)
	if err != nil {
		return "", nil, err
	}
	res, err := s.fabric.Get(ctx, fabric.GetRequest{Type: in.Type, Key: in.Key, Mode: mode, Digests: in.digests()})
	if err != nil {
		return "", nil, err
	}
	return text(func(w io.Writer) error {
		fmt.Fprintf(w, "%s\n", res.Outcome)
		if err := render.ArtifactOutcome(w, res); err != nil {
			return err
		}
		return render.ArtifactContent(w, res)
	}), res, nil
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
	req := fabric.PutRequest{Type: in.Type, Key: in.Key, Slice: in.Slice, Deps: in.Deps, Digests: in.digests(),
		Content: strings.NewReader(in.Content), Producer: "mcp"}
	ttl, err := fabric.ParseTTL(in.TTL)
	if err != nil {
		return "", nil, fmt.Errorf("ttl: %w", err)
	}
	req.TTL = ttl
	res, err := s.fabric.Put(ctx, req)
	if err != nil {
		return "", nil, err
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
	res, err := s.fabric.Invalidate(ctx, fabric.InvalidateRequest{Type: in.Type, Key: in.Key, PathPrefix: in.PathPrefix})
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("invalidated %d artifacts\n", res.Invalidated), res, nil
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
	st, err := s.fabric.Stats(ctx, window)
	if err != nil {
		return "", nil, err
	}
	return text(func(w io.Writer) error { return render.ArtifactStats(w, st) }), st, nil
}
