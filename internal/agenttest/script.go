package agenttest

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// ToolUse is one tool call the scripted model makes.
type ToolUse struct {
	Name  string
	Input map[string]any
	// Namespace is the Responses API's tool namespace (Codex serves an
	// MCP server's tools as namespace mcp__SERVER); empty for plain tools.
	Namespace string
}

// Step is one answer of the main loop: tool calls, or (when Calls is
// empty) a final text.
type Step struct {
	Calls []ToolUse
	Text  string
	// InputTokens is the usage reported with this answer (default 10):
	// over the agent's limit, it compacts its context before its next
	// request.
	InputTokens int
	// Before, when set, runs as the step is taken, before it is answered:
	// a change to the files between two of the model's calls.
	Before func()
}

// standIns counts the stand-ins started, so that the tool call ids of one
// never repeat another's (a resumed conversation carries the old ones).
var standIns atomic.Int64

// scripted is what both stand-ins share: the script, how far it got, and
// every request body received.
type scripted struct {
	mu       sync.Mutex
	script   []Step
	next     int
	requests []json.RawMessage
}

// Requests returns every request body received so far.
func (s *scripted) Requests() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.requests...)
}

// Taken returns how many steps of the script were answered.
func (s *scripted) Taken() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// take logs body and returns the step that answers it: the next one of the
// script for a main-loop request (one that offers tools), else a short
// text. n counts the requests so far, for unique ids.
func (s *scripted) take(body []byte, mainLoop bool) (step Step, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, body)
	step = Step{Text: "ok"}
	if mainLoop && s.next < len(s.script) {
		step = s.script[s.next]
		s.next++
		if step.Before != nil {
			step.Before()
		}
	}
	return step, len(s.requests)
}

// serve listens on a loopback port until the test ends and returns the
// base URL.
func serve(t testing.TB, h http.Handler) string {
	t.Helper()
	url, stop, err := listen(h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return url
}

// listen serves h on a loopback port until stop is called.
func listen(h http.Handler) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// flatText flattens a tool result's content as both APIs send it: a
// string, or a list of blocks with text.
func flatText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, x := range blocks {
		b.WriteString(x.Text)
	}
	return b.String()
}
