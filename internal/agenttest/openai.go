package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// OpenAI is a stand-in for the Responses API (POST …/responses, streamed
// as server-sent events), as Codex calls it.
type OpenAI struct {
	URL string // base URL, ending in /v1
	scripted
	id int // offsets the ids it makes, unique among stand-ins
}

// NewOpenAI starts the stand-in with a script; it stops with the test.
func NewOpenAI(t testing.TB, script []Step) *OpenAI {
	t.Helper()
	o := &OpenAI{scripted: scripted{script: script}, id: int(standIns.Add(1)) << 20}
	o.URL = serve(t, o) + "/v1"
	return o
}

// ToolResults returns the output of every function call the model was
// sent, in the order it was first sent: a compaction drops outputs from
// later requests, but what the model received before stays in the log.
func (o *OpenAI) ToolResults() []string {
	var out []string
	seen := map[string]bool{}
	for _, req := range o.Requests() {
		var body struct {
			Input []struct {
				Type   string          `json:"type"`
				CallID string          `json:"call_id"`
				Output json.RawMessage `json:"output"`
			} `json:"input"`
		}
		if json.Unmarshal(req, &body) != nil {
			continue
		}
		for _, item := range body.Input {
			if strings.HasSuffix(item.Type, "call_output") && !seen[item.CallID] {
				seen[item.CallID] = true
				out = append(out, flatText(item.Output))
			}
		}
	}
	return out
}

func (o *OpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object": "list", "data": [], "models": []}`) // model lists and the like
		return
	}
	var req struct {
		Tools []json.RawMessage `json:"tools"`
	}
	json.Unmarshal(body, &req)
	step, n := o.take(body, len(req.Tools) > 0)
	n = o.id + n
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], b)
	}
	id := fmt.Sprintf("resp_%d", n)
	event(map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	for i, item := range outputItems(step, n) {
		event(map[string]any{"type": "response.output_item.done", "output_index": i, "item": item})
	}
	in := max(step.InputTokens, 10)
	event(map[string]any{"type": "response.completed", "response": map[string]any{"id": id, "usage": map[string]any{
		"input_tokens": in, "input_tokens_details": map[string]int{"cached_tokens": 0},
		"output_tokens": 10, "output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": in + 10}}})
}

// outputItems is the step as Responses output items: one function call per
// tool call, else one assistant message.
func outputItems(step Step, n int) []map[string]any {
	var items []map[string]any
	for i, c := range step.Calls {
		args, _ := json.Marshal(c.Input)
		call := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d_%d", n, i),
			"call_id": fmt.Sprintf("call_%d_%d", n, i), "name": c.Name, "arguments": string(args), "status": "completed"}
		if c.Namespace != "" {
			call["namespace"] = c.Namespace
		}
		items = append(items, call)
	}
	if len(items) == 0 {
		items = append(items, map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_%d", n), "status": "completed",
			"content": []map[string]any{{"type": "output_text", "text": step.Text, "annotations": []any{}}}})
	}
	return items
}
