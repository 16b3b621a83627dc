// Package mcpserver serves freshctx's operations as MCP tools over stdio.
// It is an adapter: each tool decodes its arguments, calls the same service
// the CLI calls, and answers with the text the CLI prints (package render);
// with Options.Structured, also the object the CLI prints with --json as
// structured content.
//
// A tool's failure is a tool error carrying the CLI's message; a malformed
// request is answered with an error and the server keeps serving. The read
// tool's session is the one the call names (an agent's hook adds it), else
// the connection's own unless Options.Session names one; Claude Code's
// calls without one are served without trust (client.go);
// a read becomes trust as its answer is written to the client, and a cancel
// of its call takes the trust back (delivery.go).
package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/freshctx/freshctx/internal/artifact"
	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/registry"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/workspace"
)

// Project is the workspace the tools work on, opened by Options.Open.
type Project struct {
	WS    *workspace.Workspace
	Store *store.Store
	// Retention and MaxFileSize are the store's settings (see config).
	Retention   time.Duration
	MaxFileSize int64
	// Close is called when the server stops.
	Close func()
}

// Options configure the server.
type Options struct {
	// Open opens the project at root, or says why root is no project (the
	// file system root, the home folder). It is called once.
	Open func(ctx context.Context, root string) (*Project, error)
	// Root is the root the user gave (--root, FRESHCTX_ROOT). Without one,
	// the root is the client's first MCP root, else the first of Fallback
	// that Open accepts.
	Root     string
	Fallback []string
	// Session is the read cache session; "" makes one per connection.
	Session string
	// Tools, when set, serves only these tools.
	Tools []string
	// Env is the environment commands run with.
	Env []string
	// Version is reported to clients.
	Version string
	// Structured adds the CLI's --json object to each answer as structured
	// content. Off by default: clients pass it to the model beside (or
	// instead of) the text, which costs several times the tokens.
	Structured bool
}

// Server holds the services the tools call.
type Server struct {
	opt     Options
	once    sync.Once
	ready   chan struct{} // closed once the project is open or has failed
	project *Project
	openErr error
	// plain reads files when the project's store cannot be used (plain.go).
	plain *plainReads

	records   *records.Service
	registry  *registry.Service
	artifacts *artifact.Service
	readcache *readcache.Service
	session   string
	mcp       *mcp.Server
	// deliveries are the reads answered and not yet written out.
	deliveries deliveries
}

// tool is one MCP tool: its definition and its call.
type tool struct {
	name, desc, schema string
	call               func(ctx context.Context, s *Server, args json.RawMessage) (text string, result any, err error)
}

// New builds a server with the selected tools (all when opt.Tools is empty).
// An unknown tool name is an error.
func New(opt Options) (*Server, error) {
	s := &Server{opt: opt, session: opt.Session}
	if s.session == "" {
		b := make([]byte, 4)
		rand.Read(b)
		s.session = "mcp-" + hex.EncodeToString(b)
	}
	s.ready = make(chan struct{})
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "freshctx", Version: opt.Version}, &mcp.ServerOptions{
		InitializedHandler: func(ctx context.Context, req *mcp.InitializedRequest) {
			go s.resolve(context.WithoutCancel(ctx), req.Session)
		},
	})
	selected, err := selectTools(opt.Tools)
	if err != nil {
		return nil, err
	}
	for _, t := range selected {
		s.add(t)
	}
	return s, nil
}

// Names lists every tool the server can serve.
func Names() []string {
	var out []string
	for _, t := range allTools() {
		out = append(out, t.name)
	}
	return out
}

func selectTools(names []string) ([]tool, error) {
	all := allTools()
	if len(names) == 0 {
		return all, nil
	}
	var out []tool
	for _, n := range names {
		i := slices.IndexFunc(all, func(t tool) bool { return t.name == n })
		if i < 0 {
			known := Names()
			sort.Strings(known)
			return nil, fmt.Errorf("unknown tool %q: known are %s", n, strings.Join(known, ", "))
		}
		out = append(out, all[i])
	}
	return out, nil
}

func (s *Server) add(t tool) {
	s.mcp.AddTool(&mcp.Tool{Name: t.name, Description: t.desc, InputSchema: json.RawMessage(t.schema)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := s.wait(ctx, req.Session); err != nil {
				if t.name == "read" && s.plain != nil {
					return s.plain.call(ctx, req.Params.Arguments)
				}
				return &mcp.CallToolResult{IsError: true,
					Content: []mcp.Content{&mcp.TextContent{Text: "freshctx: " + err.Error()}}}, nil
			}
			if req.Session != nil {
				if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
					ctx = context.WithValue(ctx, clientKey{}, p.ClientInfo.Name)
				}
			}
			if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
				ctx = withProgress(ctx, func(p records.Progress) {
					req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
						ProgressToken: tok, Progress: p.Elapsed.Seconds(), Message: p.String(),
					})
				})
			}
			text, result, err := t.call(ctx, s, req.Params.Arguments)
			if err != nil {
				return &mcp.CallToolResult{IsError: true,
					Content: []mcp.Content{&mcp.TextContent{Text: "freshctx: " + err.Error()}}}, nil
			}
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
			if s.opt.Structured {
				res.StructuredContent = result
			}
			if read, ok := result.(*readcache.ReadResult); ok && read.Entry != 0 {
				res.Meta = mcp.Meta{deliveryKey: s.deliveries.add(s.readcache, read)}
			}
			return res, nil
		})
}

type progressKey struct{}

// withProgress gives a long call a way to report progress to the client
// that asked for it (a progress token in the request).
func withProgress(ctx context.Context, f func(records.Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

func progressFrom(ctx context.Context) func(records.Progress) {
	f, _ := ctx.Value(progressKey{}).(func(records.Progress))
	return f
}

// Session is the read cache session the read tool uses.
func (s *Server) Session() string { return s.session }

// Run serves until the client goes away. A root the user gave is opened
// first, and an error opening it is returned before serving.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	if s.opt.Root != "" {
		s.bind(ctx, []string{s.opt.Root})
		if s.openErr != nil {
			return s.openErr
		}
	}
	defer func() {
		if s.project != nil && s.project.Close != nil {
			s.project.Close()
		}
	}()
	return s.mcp.Run(ctx, deliveringTransport{Transport: t, d: &s.deliveries})
}

// decode reads a tool's arguments; missing arguments are an empty object.
func decode(args json.RawMessage, v any) error {
	if len(bytes.TrimSpace(args)) == 0 {
		return nil
	}
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("bad arguments: %w", err)
	}
	return nil
}

// text renders with one of package render's functions.
func text(f func(io.Writer) error) string {
	var b bytes.Buffer
	if err := f(&b); err != nil {
		return err.Error()
	}
	return b.String()
}
