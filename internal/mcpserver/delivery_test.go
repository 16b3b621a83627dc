package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/teststore"
)

// fakeConn hands out the messages a test queues and keeps what is written.
type fakeConn struct {
	in       []jsonrpc.Message
	out      []*jsonrpc.Response
	writeErr error
}

func (f *fakeConn) Read(context.Context) (jsonrpc.Message, error) {
	m := f.in[0]
	f.in = f.in[1:]
	return m, nil
}

func (f *fakeConn) Write(_ context.Context, m jsonrpc.Message) error {
	if f.writeErr != nil {
		return f.writeErr
	}
	f.out = append(f.out, m.(*jsonrpc.Response))
	return nil
}

func (f *fakeConn) Close() error      { return nil }
func (f *fakeConn) SessionID() string { return "" }

type fakeTransport struct{ c *fakeConn }

func (t fakeTransport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

type deliveryFixture struct {
	t    *testing.T
	rc   *readcache.Service
	d    *deliveries
	fake *fakeConn
	conn mcp.Connection
}

func newDeliveryFixture(t *testing.T) *deliveryFixture {
	r := testgit.Plain(t, t.TempDir())
	r.Write("a.go", strings.Repeat("package a // a line that is long enough to be worth caching\n", 40))
	rc := &readcache.Service{WS: teststore.Workspace(t, r.Dir), Store: teststore.Open(t, "", store.Options{}), Cwd: r.Dir}
	f := &deliveryFixture{t: t, rc: rc, d: &deliveries{}, fake: &fakeConn{}}
	conn, err := deliveringTransport{Transport: fakeTransport{f.fake}, d: f.d}.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f.conn = conn
	return f
}

func id(t *testing.T, v int) jsonrpc.ID {
	i, err := jsonrpc.MakeID(float64(v))
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// receive has the connection read one message from the client.
func (f *deliveryFixture) receive(m jsonrpc.Message) {
	f.t.Helper()
	f.fake.in = append(f.fake.in, m)
	if _, err := f.conn.Read(context.Background()); err != nil {
		f.t.Fatal(err)
	}
}

func (f *deliveryFixture) call(n int) {
	f.receive(&jsonrpc.Request{ID: id(f.t, n), Method: "tools/call", Params: json.RawMessage(`{"name":"read"}`)})
}

func (f *deliveryFixture) cancel(n int) {
	f.receive(&jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":` + jsonInt(n) + `}`)})
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }

// answer reads a.go as the read tool does and writes the answer to call n,
// returning the mode it answered with and the write's error.
func (f *deliveryFixture) answer(n int, meta map[string]any) (string, error) {
	f.t.Helper()
	res, err := f.rc.Read(context.Background(), readcache.ReadRequest{Session: "s", Target: "a.go"})
	if err != nil {
		f.t.Fatal(err)
	}
	m := map[string]any{deliveryKey: f.d.add(f.rc, res)}
	for k, v := range meta {
		m[k] = v
	}
	result, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": res.Text}}, "_meta": m})
	return res.Mode, f.conn.Write(context.Background(), &jsonrpc.Response{ID: id(f.t, n), Result: result})
}

func (f *deliveryFixture) mode(n int) string {
	f.t.Helper()
	f.call(n)
	mode, err := f.answer(n, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return mode
}

func TestReadIsTrustedOnceWritten(t *testing.T) {
	f := newDeliveryFixture(t)
	if m := f.mode(1); m != readcache.ModeFull {
		t.Fatalf("first read: %s", m)
	}
	if strings.Contains(string(f.fake.out[0].Result), "_meta") {
		t.Fatalf("the token went out: %s", f.fake.out[0].Result)
	}
	if m := f.mode(2); m != readcache.ModeUnchanged {
		t.Fatalf("second read: %s", m)
	}
}

func TestReadCancelledBeforeItsAnswerIsNotTrusted(t *testing.T) {
	f := newDeliveryFixture(t)
	f.call(1)
	f.cancel(1)
	if _, err := f.answer(1, nil); err != nil {
		t.Fatal(err)
	}
	if m := f.mode(2); m != readcache.ModeFull {
		t.Fatalf("after a cancelled read: %s", m)
	}
}

func TestReadCancelledAfterItsAnswerIsTakenBack(t *testing.T) {
	f := newDeliveryFixture(t)
	f.mode(1)
	f.mode(2) // unchanged, leaning on read 1
	f.cancel(1)
	if m := f.mode(3); m != readcache.ModeFull {
		t.Fatalf("after a read cancelled late: %s", m)
	}
	f.cancel(3) // long answered and trusted: taken back too
	if m := f.mode(4); m != readcache.ModeFull {
		t.Fatalf("after the second cancel: %s", m)
	}
}

func TestReadNotWrittenIsNotTrusted(t *testing.T) {
	f := newDeliveryFixture(t)
	f.call(1)
	f.fake.writeErr = errors.New("broken pipe")
	if _, err := f.answer(1, nil); err == nil {
		t.Fatal("the write's error was lost")
	}
	f.fake.writeErr = nil
	if m := f.mode(2); m != readcache.ModeFull {
		t.Fatalf("after an answer that was not written: %s", m)
	}
}

// A cancel names the call in flight with that id: an id used again after
// its answer leaves the earlier read alone.
func TestCancelOfAReusedIDLeavesTheEarlierRead(t *testing.T) {
	f := newDeliveryFixture(t)
	f.mode(1)
	f.call(1)
	f.cancel(1)
	if _, err := f.answer(1, nil); err != nil {
		t.Fatal(err)
	}
	if m := f.mode(2); m != readcache.ModeUnchanged {
		t.Fatalf("the earlier read was taken back: %s", m)
	}
}

func TestOtherMetaIsKept(t *testing.T) {
	f := newDeliveryFixture(t)
	f.call(1)
	if _, err := f.answer(1, map[string]any{"other": 7}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Meta map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal(f.fake.out[0].Result, &got); err != nil || len(got.Meta) != 1 || got.Meta["other"] != float64(7) {
		t.Fatalf("meta: %s", f.fake.out[0].Result)
	}
}

// A cancel whose revoke the store cannot take leaves the session poisoned:
// its next read starts with a barrier, so the read the client ignored is
// never the ground of an "unchanged".
func TestFailedRevokePoisonsTheSession(t *testing.T) {
	f := newDeliveryFixture(t)
	ctx := context.Background()
	res, err := f.rc.Read(ctx, readcache.ReadRequest{Session: "s", Target: "a.go"})
	if err != nil {
		t.Fatal(err)
	}
	tok := f.d.addDelivery(&delivery{session: res.Session(),
		deliver: func(ctx context.Context) error { return f.rc.Delivered(ctx, res) },
		revoke:  func(context.Context) error { return errors.New("database is locked") }})
	result, _ := json.Marshal(map[string]any{"content": []any{}, "_meta": map[string]any{deliveryKey: tok}})
	f.call(1)
	if err := f.conn.Write(ctx, &jsonrpc.Response{ID: id(t, 1), Result: result}); err != nil {
		t.Fatal(err)
	}
	f.cancel(1)
	if !f.d.takePoison("s") {
		t.Fatal("a failed revoke left the session unmarked")
	}
	srv := &Server{readcache: f.rc, session: "s"}
	srv.deliveries.poison("s")
	text, got, err := callRead(ctx, srv, json.RawMessage(`{"path":"a.go"}`))
	if err != nil {
		t.Fatal(err)
	}
	if mode := got.(*readcache.ReadResult).Mode; mode != readcache.ModeFull {
		t.Fatalf("the read after a failed revoke: %s (%.80q)", mode, text)
	}
	if srv.deliveries.takePoison("s") {
		t.Fatal("the barrier did not clear the poison")
	}
}

// BenchmarkTakeDelivery times taking the token out of a read's 50 KB
// answer as the connection writes it, against marshalling that answer,
// which the SDK does once for every response anyway.
func BenchmarkTakeDelivery(b *testing.B) {
	text := strings.Repeat("     1\tsome line of a source file, long enough to be typical\n", 50<<10/60)
	answer := map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "_meta": map[string]any{deliveryKey: "1"}}
	c := &deliveringConn{d: &deliveries{}}
	var take, marshal time.Duration
	for b.Loop() {
		start := time.Now()
		result, err := json.Marshal(answer)
		if err != nil {
			b.Fatal(err)
		}
		marshal += time.Since(start)
		start = time.Now()
		resp := &jsonrpc.Response{Result: result}
		c.takeDelivery(resp)
		take += time.Since(start)
		if strings.Contains(string(resp.Result), deliveryKey) {
			b.Fatal("the token stayed in the answer")
		}
	}
	b.ReportMetric(float64(take.Microseconds())/float64(b.N), "take_us")
	b.ReportMetric(float64(marshal.Microseconds())/float64(b.N), "marshal_us")
	b.ReportMetric(float64(take)/float64(marshal), "x_marshal")
}
