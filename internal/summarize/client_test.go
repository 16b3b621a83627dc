package summarize

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/agenttest"
)

const goodText = "Parses the configuration file and checks every key against its type. Defines Config and Load; Load returns an error naming the first bad key."

func TestCompleteAnswers(t *testing.T) {
	tests := []struct {
		name      string
		stream    bool
		reply     agenttest.ChatReply
		wantText  string
		wantKind  ErrorKind
		wantUsage bool
		wantRetry time.Duration
	}{
		{name: "whole", reply: agenttest.ChatReply{Text: goodText}, wantText: goodText, wantUsage: true},
		{name: "streamed", stream: true, reply: agenttest.ChatReply{Text: goodText}, wantText: goodText, wantUsage: true},
		{name: "whole to a stream request", stream: true, reply: agenttest.ChatReply{Text: goodText, Whole: true}, wantText: goodText, wantUsage: true},
		{name: "no usage", stream: true, reply: agenttest.ChatReply{Text: goodText, NoUsage: true}, wantText: goodText},
		{name: "rate limited", reply: agenttest.ChatReply{Status: 429, RetryAfter: "7"}, wantKind: RateLimited, wantRetry: 7 * time.Second},
		{name: "server error", reply: agenttest.ChatReply{Status: 503}, wantKind: ServerError},
		{name: "model not found", reply: agenttest.ChatReply{Status: 404, Body: `{"error":{"message":"model \"x\" not found"}}`}, wantKind: Refused},
		{name: "not JSON", reply: agenttest.ChatReply{Body: "<html>proxy error</html>"}, wantKind: Garbage},
		{name: "no choices", reply: agenttest.ChatReply{Body: `{"choices":[]}`}, wantKind: Garbage},
		{name: "an error with status 200", reply: agenttest.ChatReply{Body: `{"error":{"message":"out of memory"}}`}, wantKind: Garbage},
		{name: "stream cut short", stream: true, reply: agenttest.ChatReply{Text: goodText, Cut: true}, wantKind: Garbage},
		{name: "stream stalls", stream: true, reply: agenttest.ChatReply{Text: goodText, Stall: true}, wantKind: TimedOut},
		{name: "whole answer too slow", reply: agenttest.ChatReply{Text: goodText, Delay: 2 * time.Second}, wantKind: TimedOut},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chat := agenttest.NewChat(t, func(int, agenttest.ChatRequest) agenttest.ChatReply { return tt.reply })
			ep := Endpoint{URL: chat.URL, Model: "m", Key: "sk-local", Stream: tt.stream, Timeout: 300 * time.Millisecond}
			a, err := ep.Complete(context.Background(), Messages("a.go", "go", "package a\n"), AnswerTokens)
			if tt.wantKind != "" {
				var e *Error
				if !errors.As(err, &e) || e.Kind != tt.wantKind {
					t.Fatalf("err = %v, want kind %q", err, tt.wantKind)
				}
				if e.RetryAfter != tt.wantRetry {
					t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, tt.wantRetry)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.Text != tt.wantText || a.Finish != "stop" || a.Reported != tt.wantUsage {
				t.Errorf("answer = %+v", a)
			}
			reqs := chat.Requests()
			if len(reqs) != 1 || reqs[0].Auth != "Bearer sk-local" || reqs[0].Model != "m" || reqs[0].Stream != tt.stream || reqs[0].MaxTokens != AnswerTokens {
				t.Errorf("the endpoint was sent %+v", reqs)
			}
		})
	}
}

// TestStreamTimedBySilence: a streamed answer slower in all than the
// timeout, whose pieces come closer together than it, is read whole.
func TestStreamTimedBySilence(t *testing.T) {
	chat := agenttest.NewChat(t, func(int, agenttest.ChatRequest) agenttest.ChatReply {
		return agenttest.ChatReply{Text: goodText, Gap: 40 * time.Millisecond}
	})
	ep := Endpoint{URL: chat.URL, Model: "m", Stream: true, Timeout: 400 * time.Millisecond}
	start := time.Now()
	a, err := ep.Complete(context.Background(), Messages("a.go", "go", "package a\n"), AnswerTokens)
	if err != nil {
		t.Fatal(err)
	}
	if a.Text != goodText {
		t.Fatalf("text = %q", a.Text)
	}
	if took := time.Since(start); took < ep.Timeout {
		t.Fatalf("the answer took %v, less than the timeout: the test proves nothing", took)
	}
}

// nowhere is the address of an endpoint nothing listens at.
func nowhere(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	return "http://" + ln.Addr().String() + "/v1"
}

func TestUnreachable(t *testing.T) {
	_, err := Endpoint{URL: nowhere(t), Model: "m"}.Complete(context.Background(), nil, 10)
	var e *Error
	if !errors.As(err, &e) || e.Kind != Unreachable {
		t.Fatalf("err = %v, want unreachable", err)
	}
}

func TestEndpointName(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:11434/v1":                   "http://127.0.0.1:11434/v1",
		"http://127.0.0.1:11434/v1/":                  "http://127.0.0.1:11434/v1",
		"https://llm.example/v1/chat/completions?x=1": "https://llm.example/v1",
	} {
		if got := (Endpoint{URL: in}).Name(); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
	if _, err := ParseURL("http://user:secret@host/v1"); err == nil {
		t.Error("a URL with credentials was taken")
	}
	if (Endpoint{URL: "http://192.168.1.5:8000/v1"}).Loopback() || !(Endpoint{URL: "http://localhost:8000/v1"}).Loopback() {
		t.Error("Loopback is wrong")
	}
}
