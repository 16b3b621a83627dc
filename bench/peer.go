package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/freshctx/freshctx/internal/compress"
	"github.com/freshctx/freshctx/internal/corpus"
	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/tokens"
	"github.com/freshctx/freshctx/internal/workspace"
)

const peerIntro = "The compressor corpus (real outputs of real tools, each with the facts a digest must keep:\n" +
	"failing tests, `file:line` locations, error codes, messages) through freshctx's summary digest\n" +
	"and through [context-mode](https://www.npmjs.com/package/context-mode) " + peerVersion + "'s `ctx_execute` of\n" +
	"`cat OUTPUT`, in its default mode and with an `intent`, both driven over MCP stdio: the o200k tokens\n" +
	"each returns and the facts each keeps (a fact is kept when it appears verbatim in what is\n" +
	"returned). Then the search latency of each over the same outputs: freshctx's `recall` tool against\n" +
	"context-mode's `ctx_search` after `ctx_index` of each output, one query per output made of the\n" +
	"first words of its first fact."

// The peer, pinned; Node ≥ 22.5 comes from the npm package node.
const (
	peerVersion = "1.0.169"
	peerNode    = "22.23.3"
	peerIntent  = "errors, failing tests, warnings and their file:line locations"
)

func (b *bench) peer(ctx context.Context, sec *section) error {
	entries, err := corpus.Load(filepath.Join(b.root, corpus.Dir))
	if err != nil {
		return err
	}
	// Facts freshctx's digest writes in its own words (a grouped
	// parametrized failure, say) are not in the raw output: no peer could
	// keep them, so they are left out of the count.
	own := 0
	for i := range entries {
		var inRaw []string
		for _, f := range entries[i].Must {
			if strings.Contains(entries[i].Out, f) {
				inRaw = append(inRaw, f)
			} else {
				own++
			}
		}
		entries[i].Must = inRaw
	}
	dir := filepath.Join(b.tmp, "peer")
	if err := b.makeRepo(ctx, dir, 10, 1); err != nil {
		return err
	}
	ours, ids, err := b.freshctxDigests(ctx, dir, entries)
	if err != nil {
		return err
	}
	node, server, why := b.installPeer(ctx)
	var cmDefault, cmIntent []string
	var cm *mcp.ClientSession
	if why == "" {
		// Its search blocks a session's 9th call in a minute (to stop an
		// agent flooding its context) and trims results after the 3rd:
		// lifted here, through its own settings, to time every query.
		lift := []string{"CONTEXT_MODE_SEARCH_BLOCK_AFTER=1000000", "CONTEXT_MODE_SEARCH_MAX_RESULTS_AFTER=1000000"}
		if cm, err = b.connect(ctx, dir, lift, node, server); err != nil {
			why = "it did not start: " + err.Error()
		}
	}
	if cm != nil {
		defer cm.Close()
		for _, e := range entries {
			path := filepath.Join(b.tmp, "entries-"+e.Name+".out")
			if err := os.WriteFile(path, []byte(e.Out), 0o644); err != nil {
				return err
			}
			code := fmt.Sprintf("cat '%s'", path)
			d, err := callText(ctx, cm, "ctx_execute", map[string]any{"language": "shell", "code": code})
			if err != nil {
				return fmt.Errorf("context-mode ctx_execute: %w", err)
			}
			i, err := callText(ctx, cm, "ctx_execute", map[string]any{"language": "shell", "code": code, "intent": peerIntent})
			if err != nil {
				return fmt.Errorf("context-mode ctx_execute with intent: %w", err)
			}
			cmDefault, cmIntent = append(cmDefault, d), append(cmIntent, i)
		}
	}
	if why != "" {
		sec.note("context-mode was not measured: %s.", why)
	}
	raw := make([]string, len(entries))
	for i, e := range entries {
		raw[i] = e.Out
	}
	rows := [][]string{compressionRow("raw output", entries, raw), compressionRow("freshctx digest (summary)", entries, ours)}
	if cm != nil {
		rows = append(rows, compressionRow("context-mode, default", entries, cmDefault),
			compressionRow("context-mode, intent", entries, cmIntent))
	}
	sec.note("%d outputs of the entries; %d facts written in freshctx's own words (not in the raw output) are not counted.", len(entries), own)
	sec.table([]string{"what the agent gets", "o200k tokens", "facts kept"}, rows)
	b.report.headline("%s", corpusHeadline(len(entries), rows))
	return b.searchLatency(ctx, sec, dir, entries, ids, cm)
}

func compressionRow(name string, entries []corpus.Entry, texts []string) []string {
	toks, kept, all := 0, 0, 0
	for i, e := range entries {
		toks += tokens.Count(texts[i])
		for _, f := range e.Must {
			all++
			if strings.Contains(texts[i], f) {
				kept++
			}
		}
	}
	return []string{name, fmt.Sprint(toks), fmt.Sprintf("%d of %d (%.1f%%)", kept, all, 100*float64(kept)/float64(all))}
}

// corpusHeadline puts the digest beside the raw output and the peer's
// intent mode.
func corpusHeadline(n int, rows [][]string) string {
	s := fmt.Sprintf("%d real tool outputs, %s tokens raw: freshctx's digest %s tokens keeping %s facts", n, rows[0][1], rows[1][1], rows[1][2])
	if len(rows) > 3 {
		s += fmt.Sprintf("; context-mode %s tokens keeping %s by default, %s keeping %s with an intent", rows[2][1], rows[2][2], rows[3][1], rows[3][2])
	}
	return s + "."
}

// freshctxDigests captures every output as run would have recorded it
// under its command, in the workspace's store, and returns the digests and
// record ids.
func (b *bench) freshctxDigests(ctx context.Context, dir string, entries []corpus.Entry) ([]string, []int64, error) {
	ws, err := workspace.Discover(dir)
	if err != nil {
		return nil, nil, err
	}
	st, err := store.Open(ctx, store.DefaultPath(ws.Root), store.Options{})
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	if err := ws.ExcludeFromGit(store.DirName); err != nil {
		return nil, nil, err
	}
	svc := &records.Service{WS: ws, Store: st, Cwd: ws.Root}
	var digests []string
	var ids []int64
	for _, e := range entries {
		r, err := svc.Capture(ctx, records.CaptureRequest{
			Options: records.Options{Command: e.Cmd, Intent: compress.Summary}, Input: strings.NewReader(e.Out)})
		if err != nil {
			return nil, nil, fmt.Errorf("capture %s: %w", e.Name, err)
		}
		digests, ids = append(digests, r.Digest), append(ids, r.ID)
	}
	return digests, ids, nil
}

// installPeer installs node and context-mode, pinned, once per machine
// (into the user's cache), and returns the node binary and the server's
// script, or why it could not. -short only uses an install already there.
func (b *bench) installPeer(ctx context.Context) (node, server, why string) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", "", "no cache folder: " + err.Error()
	}
	dir := filepath.Join(cache, "freshctx-bench-peer")
	node = filepath.Join(dir, "node_modules", ".bin", "node")
	server = filepath.Join(dir, "node_modules", "context-mode", "server.bundle.mjs")
	if _, err := os.Stat(server); err != nil {
		if b.short {
			return "", "", "-short does not install it (a full run does, into " + dir + ")"
		}
		b.progress("  installing node@" + peerNode + " and context-mode@" + peerVersion + " from npm")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", "", err.Error()
		}
		ictx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		defer cancel()
		out, err := b.cmd(ictx, dir, "npm", "install", "--no-audit", "--no-fund", "--prefix", dir,
			"node@"+peerNode, "context-mode@"+peerVersion).CombinedOutput()
		if err != nil {
			return "", "", fmt.Sprintf("npm install failed: %v: %s", err, lastLine(out))
		}
	}
	if v := command(node, "--version"); !strings.HasPrefix(v, "v22.") {
		return "", "", fmt.Sprintf("the node it installed says %q, not v22", v)
	}
	return node, server, ""
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// connect starts an MCP server over stdio in dir, with env added to its
// environment.
func (b *bench) connect(ctx context.Context, dir string, env []string, name string, args ...string) (*mcp.ClientSession, error) {
	c := b.cmd(ctx, dir, name, args...)
	c.Env = append(append(c.Env, "HOME="+filepath.Join(b.tmp, "home"), "PATH="+filepath.Dir(name)+":"+os.Getenv("PATH")), env...)
	client := mcp.NewClient(&mcp.Implementation{Name: "freshctx-bench", Version: "1"}, nil)
	return client.Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
}

// callText calls a tool and returns the text it answered.
func callText(ctx context.Context, s *mcp.ClientSession, tool string, args map[string]any) (string, error) {
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("%s: %s", tool, b.String())
	}
	return b.String(), nil
}

// searchLatency times one query per output through freshctx's recall and,
// when it runs, context-mode's search, both over MCP stdio.
func (b *bench) searchLatency(ctx context.Context, sec *section, dir string, entries []corpus.Entry, ids []int64, cm *mcp.ClientSession) error {
	ours, err := b.connect(ctx, dir, nil, b.bin, "mcp")
	if err != nil {
		return fmt.Errorf("freshctx mcp: %w", err)
	}
	defer ours.Close()
	var queries []string
	for _, e := range entries {
		if len(e.Must) > 0 {
			queries = append(queries, firstWords(e.Must[0], 6))
		}
	}
	time1 := func(s *mcp.ClientSession, tool string, args func(q string) map[string]any) (sample, error) {
		var out sample
		for _, q := range queries {
			start := time.Now()
			if _, err := callText(ctx, s, tool, args(q)); err != nil {
				return nil, err
			}
			out = append(out, time.Since(start))
		}
		return out, nil
	}
	recall, err := time1(ours, "recall", func(q string) map[string]any { return map[string]any{"query": q} })
	if err != nil {
		return fmt.Errorf("freshctx recall: %w", err)
	}
	rows := [][]string{{"freshctx recall", fmt.Sprint(len(ids)), pct(recall, 50), pct(recall, 95)}}
	if cm != nil {
		for _, e := range entries {
			if _, err := callText(ctx, cm, "ctx_index", map[string]any{"content": e.Out, "source": e.Name}); err != nil {
				return fmt.Errorf("context-mode ctx_index: %w", err)
			}
		}
		search, err := time1(cm, "ctx_search", func(q string) map[string]any { return map[string]any{"queries": []string{q}} })
		if err != nil {
			return fmt.Errorf("context-mode ctx_search: %w", err)
		}
		rows = append(rows, []string{"context-mode ctx_search", fmt.Sprint(len(entries)), pct(search, 50), pct(search, 95)})
	}
	sec.note("%d queries, one tool call each over MCP stdio, timed at the client. context-mode ran with "+
		"CONTEXT_MODE_SEARCH_BLOCK_AFTER and CONTEXT_MODE_SEARCH_MAX_RESULTS_AFTER raised: by default it refuses a "+
		"session's 9th search in a minute.", len(queries))
	sec.table([]string{"search", "outputs searched", "p50", "p95"}, rows)
	return nil
}

func pct(s sample, p int) string {
	c := s.sorted()
	return ms(c[min(len(c)-1, len(c)*p/100)])
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(n, len(f))], " ")
}
