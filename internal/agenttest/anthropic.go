package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// Anthropic is a stand-in for the Messages API.
type Anthropic struct {
	URL string
	scripted
	id int // offsets the ids it makes, unique among stand-ins
	// summaries counts the compaction requests answered.
	summaries atomic.Int64
}

// Summaries returns how many compaction requests were answered.
func (a *Anthropic) Summaries() int { return int(a.summaries.Load()) }

// NewAnthropic starts the stand-in with a script; it stops with the test.
func NewAnthropic(t testing.TB, script []Step) *Anthropic {
	t.Helper()
	a := &Anthropic{scripted: scripted{script: script}, id: int(standIns.Add(1)) << 20}
	a.URL = serve(t, a)
	return a
}

// ToolResult is one tool result the model was sent.
type ToolResult struct {
	ID   string // the tool_use id it answers
	Text string
	// With are the ids of every tool result in the request that first
	// carried this one, this one included: what the model held beside it.
	With []string
}

// Results returns every tool result the model was sent, in the order it
// was first sent. A compaction drops results from later requests; what
// the model received before stays in the log.
func (a *Anthropic) Results() []ToolResult {
	var out []ToolResult
	seen := map[string]bool{}
	for _, req := range a.Requests() {
		var body struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if json.Unmarshal(req, &body) != nil {
			continue
		}
		var here []ToolResult
		for _, m := range body.Messages {
			var blocks []struct {
				Type      string          `json:"type"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
			}
			if json.Unmarshal(m.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type == "tool_result" {
					here = append(here, ToolResult{ID: b.ToolUseID, Text: flatText(b.Content)})
				}
			}
		}
		ids := make([]string, len(here))
		for i, r := range here {
			ids[i] = r.ID
		}
		for _, r := range here {
			if !seen[r.ID] {
				seen[r.ID] = true
				r.With = ids
				out = append(out, r)
			}
		}
	}
	return out
}

// ToolResults returns the text of every tool result the model was sent,
// in the order it was first sent.
func (a *Anthropic) ToolResults() []string {
	var out []string
	for _, r := range a.Results() {
		out = append(out, r.Text)
	}
	return out
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
	summary := asksForSummary(body)
	if summary {
		a.summaries.Add(1)
	}
	step, n := a.take(body, len(req.Tools) > 0 && !summary)
	if summary {
		step = Step{Text: "<analysis>The work so far.</analysis>\n<summary>The files were read; nothing is pending.</summary>"}
	}
	n = a.id + n
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
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": map[string]int{"input_tokens": max(step.InputTokens, 10), "output_tokens": 10}}
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
		"delta": map[string]any{"stop_reason": msg["stop_reason"], "stop_sequence": nil}, "usage": msg["usage"]})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// asksForSummary reports whether a request is Claude Code's compaction: it
// sends the tools too, but its last message asks for a plain-text summary
// (a summary of part of the conversation, from /rewind, asks in its first).
func asksForSummary(body []byte) bool {
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
		return false
	}
	asks := func(content json.RawMessage) bool {
		text := flatText(content)
		return strings.Contains(text, "<summary>") && strings.Contains(text, "Do NOT call any tools")
	}
	return asks(req.Messages[len(req.Messages)-1].Content) || asks(req.Messages[0].Content)
}
