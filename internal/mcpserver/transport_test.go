package mcpserver

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzCheck: whatever a line holds, check never panics, and what it passes
// on is a message the SDK decodes, so no line can end the connection.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`null`, `{}`, `[]`, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1e400,"method":"x"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if len(line) == 0 {
			return
		}
		_, code, msg := check(line)
		if code != 0 {
			if msg == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		if _, err := jsonrpc.DecodeMessage(line); err != nil {
			t.Fatalf("passed on %q, which the SDK refuses: %v", line, err)
		}
	})
}
