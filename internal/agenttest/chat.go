package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Chat is a scripted OpenAI-compatible chat completions endpoint (what
// ollama, llama.cpp's server and vLLM serve): Reply decides each answer,
// and every request is logged.
type Chat struct {
	// URL is the API's base, ending in /v1.
	URL   string
	reply func(n int, req ChatRequest) ChatReply

	mu       sync.Mutex
	requests []ChatRequest
}

// ChatRequest is one request, as the stand-in read it.
type ChatRequest struct {
	Model     string        `json:"model"`
	Messages  []ChatMessage `json:"messages"`
	Stream    bool          `json:"stream"`
	MaxTokens int           `json:"max_tokens"`
	// Auth is the Authorization header.
	Auth string `json:"-"`
}

// ChatMessage is one message of a request.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatReply is how the stand-in answers one request.
type ChatReply struct {
	Text   string
	Finish string // "stop" when empty
	// Status, when set, answers with that HTTP status and Body (an
	// OpenAI-style error when Body is empty), and RetryAfter.
	Status     int
	RetryAfter string
	// Body, when set, is sent as the whole answer (garbage).
	Body string
	// Delay waits before answering.
	Delay time.Duration
	// Stall streams the first half of the text, then waits until the
	// client goes away.
	Stall bool
	// Whole answers at once even when asked to stream; Cut ends a stream
	// before its end.
	Whole, Cut bool
	// Gap is the wait between two events of a stream.
	Gap time.Duration
	// NoUsage leaves the token counts out.
	NoUsage bool
}

// NewChat starts a stand-in on 127.0.0.1 until the test ends; reply is
// called with the request's number (from 0).
func NewChat(t testing.TB, reply func(n int, req ChatRequest) ChatReply) *Chat {
	c, stop, err := StartChat(reply)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return c
}

// StartChat starts a stand-in on 127.0.0.1 until stop is called.
func StartChat(reply func(n int, req ChatRequest) ChatReply) (c *Chat, stop func(), err error) {
	c = &Chat{reply: reply}
	url, stop, err := listen(c)
	if err != nil {
		return nil, nil, err
	}
	c.URL = url + "/v1"
	return c, stop, nil
}

// Requests are the requests received so far.
func (c *Chat) Requests() []ChatRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]ChatRequest(nil), c.requests...)
}

func (c *Chat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	var req ChatRequest
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad JSON"}}`, http.StatusBadRequest)
		return
	}
	req.Auth = r.Header.Get("Authorization")
	c.mu.Lock()
	n := len(c.requests)
	c.requests = append(c.requests, req)
	c.mu.Unlock()
	rep := c.reply(n, req)
	if rep.Delay > 0 {
		select {
		case <-time.After(rep.Delay):
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case rep.Status != 0:
		if rep.RetryAfter != "" {
			w.Header().Set("Retry-After", rep.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.Status)
		if rep.Body == "" {
			rep.Body = fmt.Sprintf(`{"error":{"message":"scripted status %d","type":"server_error"}}`, rep.Status)
		}
		io.WriteString(w, rep.Body)
	case rep.Body != "":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, rep.Body)
	case req.Stream && !rep.Whole:
		c.stream(w, r, req, rep)
	default:
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": rep.Text},
				"finish_reason": finish(rep)}},
			"usage": usage(req, rep)})
	}
}

func finish(rep ChatReply) string {
	if rep.Finish == "" {
		return "stop"
	}
	return rep.Finish
}

// usage counts about four bytes a token, as the stand-in's model would.
func usage(req ChatRequest, rep ChatReply) any {
	if rep.NoUsage {
		return nil
	}
	in := 0
	for _, m := range req.Messages {
		in += len(m.Content)/4 + 4
	}
	return map[string]any{"prompt_tokens": in, "completion_tokens": len(rep.Text)/4 + 1, "total_tokens": in + len(rep.Text)/4 + 1}
}

// stream sends the text as server-sent events, a few words each.
func (c *Chat) stream(w http.ResponseWriter, r *http.Request, req ChatRequest, rep ChatReply) {
	w.Header().Set("Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	event := func(v any) {
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", data)
		if flusher != nil {
			flusher.Flush()
		}
	}
	delta := func(text string, fin any) map[string]any {
		return map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": text}, "finish_reason": fin}}}
	}
	words := strings.SplitAfter(rep.Text, " ")
	for i, word := range words {
		if (rep.Stall || rep.Cut) && i == len(words)/2 {
			if rep.Stall {
				<-r.Context().Done()
			}
			return
		}
		if i > 0 && rep.Gap > 0 {
			time.Sleep(rep.Gap)
		}
		event(delta(word, nil))
	}
	event(delta("", finish(rep)))
	if u := usage(req, rep); u != nil {
		event(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": []any{}, "usage": u})
	}
	io.WriteString(w, "data: [DONE]\n\n")
}
