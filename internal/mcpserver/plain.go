package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/render"
	"github.com/freshctx/freshctx/internal/workspace"
)

// StoreUnusable is what Options.Open returns for a project whose store
// cannot be used (corrupt, locked, on a full or read-only disk): the
// workspace is known, so the read tool still serves files, as a plain read
// tool would (plainReads); every other tool says the error.
type StoreUnusable struct {
	WS  *workspace.Workspace
	Err error
}

func (e *StoreUnusable) Error() string { return e.Err.Error() }
func (e *StoreUnusable) Unwrap() error { return e.Err }

// plainReads answers the read tool without a store: content every time,
// nothing cached, and why, said with the first answer.
type plainReads struct {
	rc   *readcache.Service
	why  string
	said atomic.Bool
}

func (p *plainReads) call(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var in struct {
		Path          string
		Offset, Limit int
		Session       string
	}
	fail := func(err error) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "freshctx: " + err.Error()}}}, nil
	}
	if err := decode(args, &in); err != nil {
		return fail(err)
	}
	res, err := p.rc.Plain(ctx, readcache.ReadRequest{Target: in.Path, Offset: in.Offset, Limit: in.Limit}, p.why)
	if err != nil {
		return fail(err)
	}
	var b strings.Builder
	if !p.said.Swap(true) {
		fmt.Fprintf(&b, "[freshctx: its store cannot be used (%s): files are served as a plain read, nothing cached]\n", p.why)
	}
	render.ReadText(io.Writer(&b), res)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, nil
}
