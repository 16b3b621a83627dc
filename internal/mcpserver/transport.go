package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxMessage is the longest line the server reads; a longer one is answered
// with an error and skipped without being held in memory.
const maxMessage = 16 << 20

// drainTimeout bounds how long the server waits, once stdin is closed, for
// calls still running to answer.
const drainTimeout = 10 * time.Minute

// Stdio is the server's stdin/stdout transport. It is made to survive any
// input: a line that is not JSON, not a JSON-RPC 2.0 message MCP allows
// (null, a string, a number, an array or batch, another version, an id that
// is not a string or an integer, no method), or is longer than 16 MiB is
// answered with a JSON-RPC error and serving goes on — the SDK's own stdio
// transport closes the connection on it. When stdin ends, calls already
// running finish and answer before the server stops.
func Stdio(in io.Reader, out io.Writer) mcp.Transport {
	return &stdio{in: in, out: out}
}

type stdio struct {
	in  io.Reader
	out io.Writer
}

func (t *stdio) Connect(ctx context.Context) (mcp.Connection, error) {
	w := &lockedWriter{w: t.out}
	lines := &jsonLines{r: bufio.NewReaderSize(t.in, 64<<10), reject: w}
	inner, err := (&mcp.IOTransport{Reader: io.NopCloser(lines), Writer: nopCloser{w}, MaxLineLength: maxMessage + 1}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := &drainingConn{Connection: inner, pending: map[jsonrpc.ID]bool{}}
	c.idle = sync.NewCond(&c.mu)
	return c, nil
}

// drainingConn remembers the calls the server has not answered yet, so that
// the end of input waits for them instead of cancelling them.
type drainingConn struct {
	mcp.Connection
	mu      sync.Mutex
	idle    *sync.Cond
	pending map[jsonrpc.ID]bool
}

func (c *drainingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		c.waitIdle(ctx)
		return nil, err
	}
	if req, ok := msg.(*jsonrpc.Request); ok {
		switch {
		case req.IsCall():
			c.mu.Lock()
			c.pending[req.ID] = true
			c.mu.Unlock()
		case req.Method == "notifications/cancelled":
			c.forget(cancelledID(req.Params)) // a cancelled call is not answered
		}
	}
	return msg, nil
}

func (c *drainingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.forget(resp.ID)
	}
	return err
}

func (c *drainingConn) forget(id jsonrpc.ID) {
	if !id.IsValid() {
		return
	}
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
	c.idle.Broadcast()
}

// waitIdle blocks until every pending call has been answered, the context
// ends or drainTimeout passes.
func (c *drainingConn) waitIdle(ctx context.Context) {
	timer := time.AfterFunc(drainTimeout, func() {
		c.mu.Lock()
		clear(c.pending)
		c.mu.Unlock()
		c.idle.Broadcast()
	})
	defer timer.Stop()
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		clear(c.pending)
		c.mu.Unlock()
		c.idle.Broadcast()
	})
	defer stop()
	c.mu.Lock()
	for len(c.pending) > 0 {
		c.idle.Wait()
	}
	c.mu.Unlock()
}

func cancelledID(params json.RawMessage) jsonrpc.ID {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return jsonrpc.ID{}
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return jsonrpc.ID{}
	}
	return id
}

// jsonLines passes on the lines that are JSON-RPC messages the SDK can take
// and answers the rest.
type jsonLines struct {
	r      *bufio.Reader
	reject io.Writer
	buf    []byte
}

func (j *jsonLines) Read(p []byte) (int, error) {
	for len(j.buf) == 0 {
		line, tooLong, err := j.readLine()
		if tooLong {
			if werr := j.answer(nil, jsonrpc.CodeInvalidRequest, "message over 16 MiB: not read"); werr != nil {
				return 0, werr
			}
		} else if t := bytes.TrimSpace(line); len(t) > 0 {
			if id, code, msg := check(t); code != 0 {
				if werr := j.answer(id, code, msg); werr != nil {
					return 0, werr
				}
			} else {
				j.buf = append(append(j.buf[:0], t...), '\n')
			}
		}
		if err != nil {
			if len(j.buf) > 0 {
				break // the last line first; the error comes on the next Read
			}
			return 0, err
		}
	}
	n := copy(p, j.buf)
	j.buf = j.buf[n:]
	return n, nil
}

// readLine reads up to a newline. A line over maxMessage is consumed and
// dropped a buffer at a time.
func (j *jsonLines) readLine() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := j.r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxMessage {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

func (j *jsonLines) answer(id any, code int64, msg string) error {
	type wireError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	b, err := json.Marshal(struct {
		JSONRPC string    `json:"jsonrpc"`
		ID      any       `json:"id"`
		Error   wireError `json:"error"`
	}{"2.0", id, wireError{code, msg}})
	if err != nil {
		return err
	}
	_, err = j.reject.Write(append(b, '\n'))
	return err
}

// check decides whether line is a message to pass on. When it is not, it
// returns the id to answer (nil when there is none usable), a JSON-RPC
// error code and a message.
func check(line []byte) (id any, code int64, msg string) {
	if !json.Valid(line) {
		return nil, jsonrpc.CodeParseError, "parse error: the line is not JSON"
	}
	switch line[0] {
	case '[':
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: batches are not supported; send one message per line"
	case '{':
	default:
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: a message is a JSON object"
	}
	var m struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	id, idOK := parseID(m.ID)
	switch {
	case !idOK:
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: id must be a string or an integer"
	case m.JSONRPC == nil || *m.JSONRPC != "2.0":
		return id, jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`
	case m.Method == nil && (id == nil || (m.Result == nil) == (m.Error == nil)):
		return id, jsonrpc.CodeInvalidRequest, "invalid request: no method"
	case m.Method != nil && (len(m.Method) == 0 || m.Method[0] != '"'):
		return id, jsonrpc.CodeInvalidRequest, "invalid request: method must be a string"
	case len(m.Params) > 0 && m.Params[0] != '{' && m.Params[0] != '[' && string(m.Params) != "null":
		return id, jsonrpc.CodeInvalidRequest, "invalid request: params must be an object"
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return id, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	return nil, 0, ""
}

// parseID accepts what MCP allows as an id: absent (a notification), a
// string or an integer that fits in 64 bits.
func parseID(raw json.RawMessage) (any, bool) {
	if raw == nil {
		return nil, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var n int64
	if bytes.ContainsAny(raw, ".eE") || json.Unmarshal(raw, &n) != nil {
		return nil, false
	}
	return n, true
}

// lockedWriter keeps the SDK's messages and the answers to rejected lines
// from interleaving.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
