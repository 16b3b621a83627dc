package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/freshctx/freshctx/internal/readcache"
)

// A read's answer becomes trust (readcache.Delivered) only as it is written
// to the client, and stops being trust (readcache.Revoke) when the client
// cancels the call: MCP has a client that cancels ignore the answer, even
// one already on its way. The order of messages makes this exact: a cancel
// read before the answer is written keeps it from being trusted; one read
// after it takes the trust back before any later message is handled, so a
// later read never answers "unchanged" on the strength of it.
//
// A tool handler cannot see the id of its call, so a read's answer carries
// a token in its _meta; the connection takes the token out as it writes
// the response, which does carry the id.

// deliveryKey is the _meta key of the token.
const deliveryKey = "freshctx/delivery"

// deliveries holds the reads answered and not yet written out, and the
// sessions whose trust a failed revoke left wrong.
type deliveries struct {
	mu       sync.Mutex
	next     int
	waiting  map[string]*delivery
	poisoned map[string]bool
}

// delivery is one read's answer and what trusting or untrusting it takes.
type delivery struct {
	session         string
	deliver, revoke func(context.Context) error
}

func (d *deliveries) add(rc *readcache.Service, res *readcache.ReadResult) string {
	return d.addDelivery(&delivery{session: res.Session(),
		deliver: func(ctx context.Context) error { return rc.Delivered(ctx, res) },
		revoke:  func(ctx context.Context) error { return rc.Revoke(ctx, res) }})
}

func (d *deliveries) addDelivery(w *delivery) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.waiting == nil {
		d.waiting = map[string]*delivery{}
	}
	d.next++
	tok := strconv.Itoa(d.next)
	d.waiting[tok] = w
	return tok
}

// untrust revokes a delivered read. When the store cannot take the revoke
// (it waited out its busy timeout), the read's session is remembered as
// poisoned: the next read in it starts with a barrier (takePoison).
func (d *deliveries) untrust(ctx context.Context, w *delivery) {
	if w.revoke(context.WithoutCancel(ctx)) != nil {
		d.poison(w.session)
	}
}

// takePoison reports whether session's trust may hold a read that was
// taken back but could not be revoked, and forgets it: the caller puts a
// barrier in the session (and calls poison again if that fails).
func (d *deliveries) takePoison(session string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	p := d.poisoned[session]
	delete(d.poisoned, session)
	return p
}

// poison remembers that session's trust may hold a read taken back.
func (d *deliveries) poison(session string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.poisoned == nil {
		d.poisoned = map[string]bool{}
	}
	d.poisoned[session] = true
}

func (d *deliveries) take(tok string) *delivery {
	d.mu.Lock()
	defer d.mu.Unlock()
	w := d.waiting[tok]
	delete(d.waiting, tok)
	return w
}

// deliveringTransport wraps the server's transport so that its connection
// delivers and revokes reads.
type deliveringTransport struct {
	mcp.Transport
	d *deliveries
}

func (t deliveringTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	dc := &deliveringConn{Connection: c, d: t.d, calls: map[jsonrpc.ID]callState{}, written: map[jsonrpc.ID]*delivery{}}
	dc.changed = sync.NewCond(&dc.mu)
	return dc, nil
}

// callState is where a call stands on the way to its answer.
type callState int

const (
	running    callState = iota // no answer written yet
	cancelled                   // the client cancelled it before its answer
	delivering                  // its read is being trusted and written
)

// keepWritten is how many delivered reads a cancel may still reach.
const keepWritten = 1024

type deliveringConn struct {
	mcp.Connection
	d       *deliveries
	mu      sync.Mutex
	changed *sync.Cond
	calls   map[jsonrpc.ID]callState
	written map[jsonrpc.ID]*delivery // delivered reads, newest keepWritten
	order   []jsonrpc.ID             // of written, oldest first
}

func (c *deliveringConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		return msg, err
	}
	req, ok := msg.(*jsonrpc.Request)
	switch {
	case !ok:
	case req.IsCall():
		c.mu.Lock()
		c.calls[req.ID] = running
		delete(c.written, req.ID) // a cancel of this id now means this call
		c.mu.Unlock()
	case req.Method == "notifications/cancelled":
		c.cancel(ctx, cancelledID(req.Params))
	}
	return msg, nil
}

// cancel handles the client's cancel of call id before the next message is
// read: a read it already had is taken back, one not written yet never
// becomes trust.
func (c *deliveringConn) cancel(ctx context.Context, id jsonrpc.ID) {
	if !id.IsValid() {
		return
	}
	c.mu.Lock()
	for c.calls[id] == delivering {
		c.changed.Wait()
	}
	if st, ok := c.calls[id]; ok && st == running {
		c.calls[id] = cancelled
	}
	w := c.written[id]
	delete(c.written, id)
	c.mu.Unlock()
	if w != nil {
		c.d.untrust(ctx, w)
	}
}

func (c *deliveringConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return c.Connection.Write(ctx, msg)
	}
	w := c.takeDelivery(resp)
	c.mu.Lock()
	st := c.calls[resp.ID]
	if w != nil && st != cancelled {
		c.calls[resp.ID] = delivering
	} else {
		w = nil
	}
	c.mu.Unlock()
	trusted := w != nil && w.deliver(context.WithoutCancel(ctx)) == nil
	err := c.Connection.Write(ctx, msg)
	if trusted && err != nil {
		c.d.untrust(ctx, w) // it never reached the client
		trusted = false
	}
	c.mu.Lock()
	delete(c.calls, resp.ID)
	if trusted {
		c.remember(resp.ID, w)
	}
	c.changed.Broadcast()
	c.mu.Unlock()
	return err
}

// remember keeps a delivered read for a cancel that may follow; c.mu held.
func (c *deliveringConn) remember(id jsonrpc.ID, w *delivery) {
	if _, ok := c.written[id]; !ok {
		c.order = append(c.order, id)
	}
	c.written[id] = w
	for len(c.order) > keepWritten {
		delete(c.written, c.order[0])
		c.order = c.order[1:]
	}
}

// takeDelivery removes a read's token from the response and returns the
// read it stands for, if any.
func (c *deliveringConn) takeDelivery(resp *jsonrpc.Response) *delivery {
	if resp.Error != nil || !bytes.Contains(resp.Result, []byte(`"`+deliveryKey+`"`)) {
		return nil
	}
	var result map[string]json.RawMessage
	if json.Unmarshal(resp.Result, &result) != nil {
		return nil
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(result["_meta"], &meta) != nil {
		return nil
	}
	var tok string
	if json.Unmarshal(meta[deliveryKey], &tok) != nil {
		return nil
	}
	delete(meta, deliveryKey)
	if len(meta) == 0 {
		delete(result, "_meta")
	} else if b, err := json.Marshal(meta); err == nil {
		result["_meta"] = b
	}
	if b, err := json.Marshal(result); err == nil {
		resp.Result = b
	}
	return c.d.take(tok)
}
