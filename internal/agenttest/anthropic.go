package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Anthropic is a stand-in for the Messages API.
type Anthropic struct {
	URL string
	scripted
}

// NewAnthropic starts the stand-in with a script; it stops with the test.
func NewAnthropic(t testing.TB, script []Step) *Anthropic {
	t.Helper()
	a := &Anthropic{scripted: scripted{script: script}}
	a.URL = serve(t, a)
	return a
}

// ToolResults returns, in order, the text of every tool_result the model
// was sent in the last main-loop request (the whole conversation).
func (a *Anthropic) ToolResults() []string {
	reqs := a.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		var body struct {
			Tools    []json.RawMessage `json:"tools"`
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if json.Unmarshal(reqs[i], &body) != nil || len(body.Tools) == 0 {
			continue
		}
		var out []string
		for _, m := range body.Messages {
			var blocks []struct {
				Type    string          `json:"type"`
				Content json.RawMessage `json:"content"`
			}
			if json.Unmarshal(m.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type == "tool_result" {
					out = append(out, flatText(b.Content))
				}
			}
		}
		return out
	}
	return nil
}

func (a *Anthropic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if !strings.HasSuffix(r.URL.Path, "/messages") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens": 10}`) // count_tokens and the like
		return
	}
	var req struct {
		Stream bool              `json:"stream"`
		Tools  []json.RawMessage `json:"tools"`
	}
	json.Unmarshal(body, &req)
	step, n := a.take(body, len(req.Tools) > 0)
	if req.Stream {
		streamStep(w, step, n)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(message(step, n))
}

func message(step Step, n int) map[string]any {
	var content []map[string]any
	stop := "end_turn"
	for i, c := range step.Calls {
		content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d_%d", n, i), "name": c.Name, "input": c.Input})
		stop = "tool_use"
	}
	if len(step.Calls) == 0 {
		content = append(content, map[string]any{"type": "text", "text": step.Text})
	}
	return map[string]any{"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": "claude-stand-in",
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 10}}
}

// streamStep writes the step as the Messages API's server-sent events.
func streamStep(w http.ResponseWriter, step Step, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	msg := message(step, n)
	blocks := msg["content"].([]map[string]any)
	head := map[string]any{}
	for k, v := range msg {
		head[k] = v
	}
	head["content"], head["stop_reason"] = []any{}, nil
	event := func(name string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"type": "message_start", "message": head})
	for i, b := range blocks {
		switch b["type"] {
		case "tool_use":
			input, _ := json.Marshal(b["input"])
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		default:
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": msg["stop_reason"], "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 10}})
	event("message_stop", map[string]any{"type": "message_stop"})
}
