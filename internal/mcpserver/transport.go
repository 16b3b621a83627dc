package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio is the server's stdin/stdout transport, made to survive input that
// is not JSON: such a line is answered with a JSON-RPC parse error and
// dropped, and serving goes on (the SDK's own stdio transport closes the
// connection on it).
func Stdio(in io.Reader, out io.Writer) mcp.Transport {
	w := &lockedWriter{w: out}
	return &mcp.IOTransport{
		Reader: io.NopCloser(&jsonLines{r: bufio.NewReaderSize(in, 64<<10), reject: w}),
		Writer: nopCloser{w},
	}
}

// parseError is JSON-RPC's answer to a message that is not JSON.
var parseError = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the line is not JSON"}}` + "\n")

// jsonLines passes on the lines that are JSON values and rejects the rest.
type jsonLines struct {
	r      *bufio.Reader
	reject io.Writer
	buf    []byte
}

func (j *jsonLines) Read(p []byte) (int, error) {
	for len(j.buf) == 0 {
		line, err := j.r.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if json.Valid(t) {
				j.buf = append(j.buf[:0], line...)
				if line[len(line)-1] != '\n' {
					j.buf = append(j.buf, '\n')
				}
			} else if _, werr := j.reject.Write(parseError); werr != nil {
				return 0, werr
			}
		}
		if err != nil {
			if len(j.buf) > 0 {
				break
			}
			return 0, err
		}
	}
	n := copy(p, j.buf)
	j.buf = j.buf[n:]
	return n, nil
}

// lockedWriter keeps the SDK's messages and parse errors from interleaving.
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
