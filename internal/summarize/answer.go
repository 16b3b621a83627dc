package summarize

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// garbageError is an answer that is not one.
type garbageError struct{ msg string }

func (e *garbageError) Error() string { return e.msg }

func garbage(format string, args ...any) error {
	return &garbageError{msg: fmt.Sprintf(format, args...)}
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

type errorField struct {
	Message string `json:"message"`
}

// whole is a chat completion answered at once.
type whole struct {
	Choices []struct {
		Message *struct {
			Content *string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage          `json:"usage"`
	Error json.RawMessage `json:"error"`
}

func readWhole(r io.Reader) (Answer, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Answer{}, err
	}
	var w whole
	if err := json.Unmarshal(data, &w); err != nil {
		return Answer{}, garbage("the answer is not JSON: %.80q", data)
	}
	if len(w.Error) > 0 && string(w.Error) != "null" {
		return Answer{}, garbage("the answer is an error: %s", errorMessage(data))
	}
	if len(w.Choices) == 0 || w.Choices[0].Message == nil || w.Choices[0].Message.Content == nil {
		return Answer{}, garbage("the answer holds no message: %.80q", data)
	}
	a := Answer{Text: *w.Choices[0].Message.Content, Finish: w.Choices[0].FinishReason}
	a.count(w.Usage)
	return a, nil
}

func (a *Answer) count(u *usage) {
	if u != nil && (u.PromptTokens > 0 || u.CompletionTokens > 0) {
		a.PromptTokens, a.AnswerTokens, a.Reported = u.PromptTokens, u.CompletionTokens, true
	}
}

// chunk is one server-sent event of a streamed completion.
type chunk struct {
	Choices []struct {
		Delta struct {
			Content *string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage          `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// readStream reads server-sent events up to [DONE]: the pieces of the
// answer, its finish reason and the usage the last event may carry.
func readStream(r io.Reader) (Answer, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxAnswerBytes)
	var a Answer
	var text strings.Builder
	events, done := 0, false
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue // comments, event names, ids, blank separators
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			done = true
			break
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return Answer{}, garbage("an event of the stream is not JSON: %.80q", data)
		}
		if len(c.Error) > 0 && string(c.Error) != "null" {
			return Answer{}, garbage("the stream carried an error: %s", errorMessage([]byte(data)))
		}
		events++
		for _, ch := range c.Choices[:min(1, len(c.Choices))] {
			if ch.Delta.Content != nil {
				text.WriteString(*ch.Delta.Content)
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				a.Finish = *ch.FinishReason
			}
		}
		a.count(c.Usage)
	}
	if err := sc.Err(); err != nil {
		return Answer{}, err
	}
	switch {
	case events == 0:
		return Answer{}, garbage("the stream held no answer")
	case !done && a.Finish == "":
		return Answer{}, garbage("the stream ended before the answer did")
	}
	a.Text = text.String()
	return a, nil
}

// watchdog cancels a request that takes too long: in all for an answer
// given whole, between two reads for a streamed one.
type watchdog struct {
	d    time.Duration
	mu   sync.Mutex
	t    *time.Timer
	done bool
}

func newWatchdog(d time.Duration, fire func()) *watchdog {
	w := &watchdog{d: d}
	if d > 0 {
		w.t = time.AfterFunc(d, fire)
	}
	return w
}

func (w *watchdog) stop() {
	if w.t != nil {
		w.mu.Lock()
		w.done = true
		w.t.Stop()
		w.mu.Unlock()
	}
}

func (w *watchdog) reader(r io.Reader, stream bool) io.Reader {
	if !stream || w.t == nil {
		return r
	}
	return readerFunc(func(p []byte) (int, error) {
		n, err := r.Read(p)
		if n > 0 {
			w.mu.Lock()
			if !w.done {
				w.t.Reset(w.d)
			}
			w.mu.Unlock()
		}
		return n, err
	})
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
