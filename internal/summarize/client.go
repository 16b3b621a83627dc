package summarize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/freshctx/freshctx/internal/config"
)

// Endpoint is an OpenAI-compatible chat completions endpoint.
type Endpoint struct {
	// URL is the API's base (http://127.0.0.1:11434/v1) or its
	// chat/completions address.
	URL   string
	Model string
	// Key, when set, is sent as a bearer token. It comes from the
	// environment and is never stored.
	Key string
	// Stream asks for the answer as server-sent events; a server that
	// answers whole instead is read whole.
	Stream bool
	// Timeout bounds one attempt; when streaming, it bounds the silence
	// between two pieces of the answer instead, so a slow model that keeps
	// writing is not cut off.
	Timeout time.Duration
	// Client sends the requests; nil uses a client without a proxy (the
	// endpoint is named by the user; no environment variable redirects
	// what freshctx sends).
	Client *http.Client
}

// ParseURL checks an endpoint address (as the summarize.endpoint setting
// is checked) and returns its chat/completions address.
func ParseURL(raw string) (*url.URL, error) {
	u, err := config.ParseEndpoint(raw)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/chat/completions") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/chat/completions"
	}
	return u, nil
}

// Name is the endpoint as a summary records it: its address without query,
// fragment or the chat/completions tail.
func (e Endpoint) Name() string {
	u, err := ParseURL(e.URL)
	if err != nil {
		return e.URL
	}
	path := strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/chat/completions")
	return u.Scheme + "://" + u.Host + path
}

// Loopback reports whether the endpoint is on this machine: what is sent
// elsewhere over plain http travels unencrypted.
func (e Endpoint) Loopback() bool {
	u, err := ParseURL(e.URL)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Message is one message of a chat.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Answer is what the endpoint answered.
type Answer struct {
	Text string
	// Finish is the endpoint's finish_reason ("stop", "length", …).
	Finish string
	// PromptTokens and AnswerTokens are the endpoint's counts; Reported is
	// false when it gave none.
	PromptTokens, AnswerTokens int
	Reported                   bool
}

// ErrorKind says what went wrong with a request, for the retry policy and
// the message.
type ErrorKind string

const (
	Unreachable ErrorKind = "unreachable"  // no connection
	TimedOut    ErrorKind = "timed out"    // no answer in time
	RateLimited ErrorKind = "rate limited" // 429
	ServerError ErrorKind = "server error" // 5xx
	Refused     ErrorKind = "refused"      // another 4xx
	Garbage     ErrorKind = "garbage"      // an answer that is not one
)

// Error is a failed request.
type Error struct {
	Kind   ErrorKind
	Status int
	// RetryAfter is the server's Retry-After, when it gave one.
	RetryAfter time.Duration
	Detail     string
}

func (e *Error) Error() string {
	msg := "the endpoint " + string(e.Kind)
	if e.Status != 0 {
		msg += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Retryable reports whether another attempt may succeed.
func (e *Error) Retryable() bool {
	return e.Kind == TimedOut || e.Kind == RateLimited || e.Kind == ServerError
}

// maxAnswerBytes bounds what is read of one answer.
const maxAnswerBytes = 1 << 20

// Complete sends one chat and returns the answer.
func (e Endpoint) Complete(ctx context.Context, msgs []Message, maxTokens int) (Answer, error) {
	u, err := ParseURL(e.URL)
	if err != nil {
		return Answer{}, err
	}
	body := map[string]any{"model": e.Model, "messages": msgs, "max_tokens": maxTokens, "temperature": 0, "stream": e.Stream}
	if e.Stream {
		body["stream_options"] = map[string]any{"include_usage": true}
	}
	data, err := json.Marshal(body)
	if err != nil {
		return Answer{}, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watch := newWatchdog(e.Timeout, func() { cancel(errSilent) })
	defer watch.stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(data))
	if err != nil {
		return Answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if e.Key != "" {
		req.Header.Set("Authorization", "Bearer "+e.Key)
	}
	resp, err := e.client().Do(req)
	if err != nil {
		return Answer{}, requestError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return Answer{}, statusError(resp)
	}
	answer := io.LimitReader(watch.reader(resp.Body, e.Stream), maxAnswerBytes)
	var a Answer
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		a, err = readStream(answer)
	} else {
		a, err = readWhole(answer)
	}
	if err != nil {
		return Answer{}, requestError(ctx, err)
	}
	return a, nil
}

func (e Endpoint) client() *http.Client {
	if e.Client != nil {
		return e.Client
	}
	return noProxy
}

var noProxy = &http.Client{Transport: &http.Transport{
	Proxy:               nil,
	DialContext:         (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
	MaxIdleConnsPerHost: 16,
}}

var errSilent = errors.New("the endpoint went silent")

// requestError names why a request failed: the deadline, the watchdog,
// a refused connection, or an answer that could not be read.
func requestError(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); errors.Is(cause, errSilent) {
		return &Error{Kind: TimedOut, Detail: "no answer within the timeout"}
	} else if ctx.Err() != nil {
		return ctx.Err()
	}
	var ge *garbageError
	if errors.As(err, &ge) {
		return &Error{Kind: Garbage, Detail: ge.msg}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &Error{Kind: TimedOut, Detail: err.Error()}
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return &Error{Kind: Unreachable, Detail: oe.Err.Error()}
	}
	return &Error{Kind: Unreachable, Detail: err.Error()}
}

func statusError(resp *http.Response) error {
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	e := &Error{Status: resp.StatusCode, Detail: errorMessage(msg)}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		e.Kind = RateLimited
		e.RetryAfter = retryAfter(resp.Header.Get("Retry-After"))
	case resp.StatusCode >= 500:
		e.Kind = ServerError
	default:
		e.Kind = Refused
	}
	return e
}

// errorMessage is the message of an OpenAI-style error body, else the
// body's first line.
func errorMessage(body []byte) string {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &v) == nil && len(v.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(v.Error, &obj) == nil && obj.Message != "" {
			return oneLine(obj.Message)
		}
		var s string
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			return oneLine(s)
		}
	}
	return oneLine(string(body))
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}
