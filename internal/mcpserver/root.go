package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/freshctx/freshctx/internal/artifact"
	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/registry"
)

// rootsTimeout bounds how long the server waits for the client's roots.
const rootsTimeout = 5 * time.Second

// resolve finds the root once the client is initialized: its MCP roots
// when it offers them, else the fallbacks.
func (s *Server) resolve(ctx context.Context, ss *mcp.ServerSession) {
	var candidates []string
	if ss != nil {
		if p := ss.InitializeParams(); p != nil && p.Capabilities != nil && p.Capabilities.RootsV2 != nil {
			rctx, cancel := context.WithTimeout(ctx, rootsTimeout)
			if res, err := ss.ListRoots(rctx, nil); err == nil {
				for _, r := range res.Roots {
					if dir, ok := fileURI(r.URI); ok {
						candidates = append(candidates, dir)
					}
				}
			}
			cancel()
		}
	}
	s.bind(ctx, append(candidates, s.opt.Fallback...))
}

// fileURI turns a file:// root into a path.
func fileURI(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", false
	}
	return u.Path, true
}

// bind opens the first candidate Open accepts, once; the tools wait for it.
func (s *Server) bind(ctx context.Context, candidates []string) {
	s.once.Do(func() {
		defer close(s.ready)
		var why []string
		for _, root := range candidates {
			if root == "" {
				continue
			}
			p, err := s.opt.Open(ctx, root)
			var su *StoreUnusable
			if errors.As(err, &su) && s.plain == nil {
				s.plain = &plainReads{rc: &readcache.Service{WS: su.WS, Cwd: su.WS.Root}, why: su.Err.Error()}
			}
			if err != nil {
				why = append(why, err.Error())
				continue
			}
			s.use(p)
			return
		}
		if len(why) == 0 {
			why = append(why, "the client gave no root and there is no fallback")
		}
		s.openErr = fmt.Errorf("no project to work in (%s); start freshctx mcp in the project's folder or pass --root", strings.Join(why, "; "))
	})
}

func (s *Server) use(p *Project) {
	root := p.WS.Root
	s.project = p
	s.records = &records.Service{WS: p.WS, Store: p.Store, Cwd: root, Retention: p.Retention}
	s.registry = &registry.Service{WS: p.WS, Store: p.Store, Cwd: root, MaxFileSize: p.MaxFileSize}
	s.artifacts = &artifact.Service{WS: p.WS, Store: p.Store, Cwd: root}
	s.readcache = &readcache.Service{WS: p.WS, Store: p.Store, Cwd: root}
}

// wait blocks a tool call until the project is open. A client that did not
// send initialized (newer protocol versions have no such step) has its
// roots asked for here, where it allows that, else gets the fallbacks.
func (s *Server) wait(ctx context.Context, ss *mcp.ServerSession) error {
	select {
	case <-s.ready:
	case <-time.After(100 * time.Millisecond):
		s.resolve(context.WithoutCancel(ctx), ss)
	case <-ctx.Done():
		return ctx.Err()
	}
	<-s.ready
	if s.openErr != nil {
		return s.openErr
	}
	if s.project == nil {
		return errors.New("no project open")
	}
	return nil
}
