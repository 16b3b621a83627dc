package summarize

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/agenttest"
	"github.com/freshctx/freshctx/internal/artifact"
	"github.com/freshctx/freshctx/internal/registry"
	"github.com/freshctx/freshctx/internal/sha"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/teststore"
)

// secret is a GitHub token's shape, which redaction must take out.
const secret = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"

type autoRig struct {
	t    *testing.T
	r    *testgit.Repo
	auto *Auto
}

func newAutoRig(t *testing.T, reply func(n int, req agenttest.ChatRequest) agenttest.ChatReply) (*autoRig, *agenttest.Chat) {
	r := testgit.New(t)
	r.Write("a.go", "package a\n\n// A adds.\nfunc A(x, y int) int { return x + y }\n")
	r.Write("b.go", "package a\n\n// B subtracts.\nfunc B(x, y int) int { return x - y }\n")
	r.Write("c.go", "package a\n\nconst token = \""+secret+"\"\n")
	r.Write("big.go", "package a\n\n"+strings.Repeat("// a long comment line of the big file\n", 200))
	r.Write(".env", "API_KEY=abc\n")
	r.Write("img.bin", "\x00\x01\x02binary")
	r.Commit("init")
	chat := agenttest.NewChat(t, reply)
	ws := teststore.Workspace(t, r.Dir)
	st := teststore.Open(t, "", store.Options{})
	now := func() time.Time { return time.Now().Add(time.Minute) }
	reg := &registry.Service{WS: ws, Store: st, Cwd: r.Dir, Now: now}
	arts := &artifact.Service{WS: ws, Store: st, Cwd: r.Dir}
	return &autoRig{t: t, r: r, auto: &Auto{Registry: reg, Artifacts: arts, MaxFileSize: 4096,
		Endpoint: Endpoint{URL: chat.URL, Model: "qwen-test", Stream: true, Timeout: 5 * time.Second},
		Options:  Options{Jobs: 2, Sleep: noSleep}}}, chat
}

func (g *autoRig) run(paths ...string) *Result {
	g.t.Helper()
	ctx := context.Background()
	plan, err := g.auto.Plan(ctx, paths)
	if err != nil {
		g.t.Fatal(err)
	}
	res, err := g.auto.Run(ctx, plan, nil)
	if err != nil {
		g.t.Fatal(err)
	}
	return res
}

func (g *autoRig) files() map[string]registry.File {
	g.t.Helper()
	res, err := g.auto.Registry.ListCurrent(context.Background(), false)
	if err != nil {
		g.t.Fatal(err)
	}
	out := map[string]registry.File{}
	for _, f := range res.Files {
		out[f.Path] = f
	}
	return out
}

func summaryOf(req agenttest.ChatRequest) string {
	return "Summary of " + pathOf(req) + ": adds, subtracts or holds a constant, as its name says."
}

// TestAutoStoresWhoWroteIt: every file without a summary is sent, redacted;
// nothing sensitive, binary or too large is; each summary is stored with
// its model, endpoint, prompt version and the SHA-256 of its bytes, and
// goes stale, with its author, when the file is edited.
func TestAutoStoresWhoWroteIt(t *testing.T) {
	g, chat := newAutoRig(t, func(_ int, req agenttest.ChatRequest) agenttest.ChatReply {
		return agenttest.ChatReply{Text: summaryOf(req)}
	})
	res := g.run()
	if strings.Join(res.Summarized, " ") == "" || len(res.Failed)+len(res.Refused)+len(res.NotSent) != 0 {
		t.Fatalf("result %+v", res)
	}
	skipped := map[string]string{}
	for _, s := range res.Skipped {
		skipped[s.Path] = s.Reason
	}
	if !strings.Contains(skipped["big.go"], "over the limit") {
		t.Errorf("big.go: skipped %q", skipped["big.go"])
	}
	for _, req := range chat.Requests() {
		body := req.Messages[len(req.Messages)-1].Content
		switch p := pathOf(req); {
		case p == "big.go" || p == ".env" || p == "img.bin":
			t.Errorf("%s was sent", p)
		case strings.Contains(body, secret) || strings.Contains(body, "API_KEY"):
			t.Errorf("%s was sent with its secret: %q", p, body)
		}
	}
	files := g.files()
	for _, p := range []string{"a.go", "b.go", "c.go"} {
		f := files[p]
		switch {
		case f.Summary == nil || !strings.Contains(*f.Summary, "Summary of "+p):
			t.Fatalf("%s: summary %v", p, f.Summary)
		case f.SummaryBy != registry.ByModel || f.SummarySource == nil ||
			*f.SummarySource != (registry.Source{Model: "qwen-test", Endpoint: g.auto.Endpoint.Name(), Prompt: PromptVersion}):
			t.Fatalf("%s: by %q, source %+v", p, f.SummaryBy, f.SummarySource)
		case f.SummarySHA256 != sha.Bytes([]byte(g.r.Read(p))).String() || f.SummaryStale:
			t.Fatalf("%s: sha256 %s, stale %v", p, f.SummarySHA256, f.SummaryStale)
		}
	}
	g.r.Write("a.go", "package a\n\n// A adds three.\nfunc A(x, y, z int) int { return x + y + z }\n")
	a := g.files()["a.go"]
	if !a.SummaryStale || a.SummaryBy != registry.ByModel || a.SummarySource == nil {
		t.Fatalf("a.go after an edit: stale %v, by %q, source %v", a.SummaryStale, a.SummaryBy, a.SummarySource)
	}
	// Run again: only the stale file is sent.
	before := len(chat.Requests())
	if res := g.run(); strings.Join(res.Summarized, " ") != "a.go" {
		t.Fatalf("the second run summarized %v", res.Summarized)
	}
	if n := len(chat.Requests()) - before; n != 1 {
		t.Fatalf("the second run sent %d requests, want 1", n)
	}
}

func TestAutoSkipsWhatIsNeverSent(t *testing.T) {
	g, chat := newAutoRig(t, func(_ int, req agenttest.ChatRequest) agenttest.ChatReply {
		return agenttest.ChatReply{Text: summaryOf(req)}
	})
	res := g.run(g.r.Path(".env"), g.r.Path("img.bin"), g.r.Path("big.go"))
	want := map[string]string{".env": "sensitive", "img.bin": "binary", "big.go": "over the limit"}
	if len(res.Skipped) != 3 || len(chat.Requests()) != 0 {
		t.Fatalf("skipped %+v, %d requests", res.Skipped, len(chat.Requests()))
	}
	for _, s := range res.Skipped {
		if !strings.Contains(s.Reason, want[s.Path]) {
			t.Errorf("%s skipped for %q, want %q", s.Path, s.Reason, want[s.Path])
		}
	}
}

// TestAutoStoresNoBadAnswer: a refused answer and a failed request leave
// the file without a summary; the others are stored.
func TestAutoStoresNoBadAnswer(t *testing.T) {
	g, _ := newAutoRig(t, func(_ int, req agenttest.ChatRequest) agenttest.ChatReply {
		switch pathOf(req) {
		case "a.go":
			return agenttest.ChatReply{Text: ""}
		case "b.go":
			return agenttest.ChatReply{Status: 500}
		}
		return agenttest.ChatReply{Text: summaryOf(req)}
	})
	res := g.run(g.r.Path("a.go"), g.r.Path("b.go"), g.r.Path("c.go"))
	if len(res.Refused) != 1 || res.Refused[0].Path != "a.go" || len(res.Failed) != 1 || res.Failed[0].Path != "b.go" ||
		!strings.Contains(res.Failed[0].Reason, "HTTP 500") {
		t.Fatalf("result %+v", res)
	}
	files := g.files()
	if files["a.go"].Summary != nil || files["b.go"].Summary != nil || files["c.go"].Summary == nil {
		t.Fatalf("summaries: a %v, b %v, c %v", files["a.go"].Summary, files["b.go"].Summary, files["c.go"].Summary)
	}
}

// TestAutoFileChangedWhileAsked: a file edited after it was read and
// before its answer came gets no summary: the summary would describe
// bytes the file no longer holds.
func TestAutoFileChangedWhileAsked(t *testing.T) {
	var g *autoRig
	g, _ = newAutoRig(t, func(_ int, req agenttest.ChatRequest) agenttest.ChatReply {
		g.r.Write("a.go", "package a\n\n// A multiplies now.\nfunc A(x, y int) int { return x * y }\n")
		return agenttest.ChatReply{Text: summaryOf(req)}
	})
	res := g.run(g.r.Path("a.go"))
	if len(res.Failed) != 1 || !strings.Contains(res.Failed[0].Reason, "changed while") {
		t.Fatalf("result %+v", res)
	}
	if f := g.files()["a.go"]; f.Summary != nil {
		t.Fatalf("a.go has the summary %q of content it no longer holds", *f.Summary)
	}
}

// TestAutoRenewsStaleArtifacts: a file_summary artifact gone stale with
// its file is put again with the model's summary; a fresh one is left.
func TestAutoRenewsStaleArtifacts(t *testing.T) {
	g, _ := newAutoRig(t, func(_ int, req agenttest.ChatRequest) agenttest.ChatReply {
		return agenttest.ChatReply{Text: summaryOf(req)}
	})
	ctx := context.Background()
	for _, p := range []string{"a.go", "b.go"} {
		if _, err := g.auto.Artifacts.Put(ctx, artifact.PutRequest{Type: ArtifactType, Key: p, Deps: []string{p},
			Content: strings.NewReader("old summary of " + p)}); err != nil {
			t.Fatal(err)
		}
	}
	g.r.Write("a.go", "package a\n\n// A adds three.\nfunc A(x, y, z int) int { return x + y + z }\n")
	res := g.run(g.r.Path("a.go"), g.r.Path("b.go"))
	if strings.Join(res.ArtifactsRenewed, " ") != "a.go" {
		t.Fatalf("renewed %v, want a.go only", res.ArtifactsRenewed)
	}
	for p, want := range map[string]string{"a.go": "Summary of a.go", "b.go": "old summary of b.go"} {
		got, err := g.auto.Artifacts.Get(ctx, artifact.GetRequest{Type: ArtifactType, Key: p})
		if err != nil {
			t.Fatal(err)
		}
		if got.Outcome != artifact.Hit || !strings.Contains(got.Content, want) {
			t.Fatalf("%s: %s %q, want a hit with %q", p, got.Outcome, got.Content, want)
		}
	}
}
