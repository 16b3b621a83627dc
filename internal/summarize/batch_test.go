package summarize

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/agenttest"
)

func jobs(n int) []Job {
	out := make([]Job, n)
	for i := range out {
		out[i] = Job{Path: fmt.Sprintf("src/f%02d.go", i), Lang: "go", Text: fileText, SHA256: fmt.Sprint(i), Tokens: 100}
	}
	return out
}

// pathOf is the file a request asks about.
func pathOf(req agenttest.ChatRequest) string {
	for _, m := range req.Messages {
		if p, ok := strings.CutPrefix(m.Content, "File: "); ok {
			return p[:strings.IndexByte(p, '\n')]
		}
	}
	return ""
}

func noSleep(context.Context, time.Duration) error { return nil }

func collect(ctx context.Context, ep Endpoint, js []Job, opt Options) (map[string]Outcome, Totals) {
	got := map[string]Outcome{}
	tot := Run(ctx, ep, js, opt, func(o Outcome) {
		if _, dup := got[o.Job.Path]; dup {
			panic("two outcomes for " + o.Job.Path)
		}
		got[o.Job.Path] = o
	})
	return got, tot
}

func TestRunKeepsToItsLimit(t *testing.T) {
	var now, most atomic.Int32
	chat := agenttest.NewChat(t, func(int, agenttest.ChatRequest) agenttest.ChatReply {
		n := now.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(30 * time.Millisecond)
		now.Add(-1)
		return agenttest.ChatReply{Text: goodText}
	})
	got, tot := collect(context.Background(), Endpoint{URL: chat.URL, Model: "m"}, jobs(20), Options{Jobs: 3})
	if tot.Summarized != 20 || len(got) != 20 {
		t.Fatalf("totals %+v", tot)
	}
	if m := most.Load(); m > 3 || m < 2 {
		t.Fatalf("%d requests at once, want at most 3 (and more than 1)", m)
	}
}

func TestRunRetriesWhatMaySucceed(t *testing.T) {
	chat := agenttest.NewChat(t, func(n int, _ agenttest.ChatRequest) agenttest.ChatReply {
		return []agenttest.ChatReply{{Status: 429, RetryAfter: "2"}, {Status: 503}, {Text: goodText}}[min(n, 2)]
	})
	var waits []time.Duration
	opt := Options{Backoff: time.Second, Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	got, _ := collect(context.Background(), Endpoint{URL: chat.URL, Model: "m"}, jobs(1), opt)
	o := got["src/f00.go"]
	if o.Summary != goodText || o.Attempts != 3 {
		t.Fatalf("outcome %+v", o)
	}
	if !slices.Equal(waits, []time.Duration{2 * time.Second, 2 * time.Second}) {
		t.Fatalf("waited %v, want the server's 2s, then the second backoff", waits)
	}
	if o.Tokens == 0 {
		t.Fatal("no tokens counted")
	}
}

func TestRunStopsWhenTheEndpointIsDown(t *testing.T) {
	got, tot := collect(context.Background(), Endpoint{URL: nowhere(t), Model: "m"}, jobs(10), Options{Sleep: noSleep})
	if tot.Failed != UnreachableInARow || tot.NotSent != 10-UnreachableInARow || !strings.Contains(tot.Stopped, "could not be reached") {
		t.Fatalf("totals %+v", tot)
	}
	for _, o := range got {
		if o.Err == nil && !strings.Contains(o.NotSent, "could not be reached") {
			t.Fatalf("outcome %+v", o)
		}
	}
}

func TestRunKeepsToTheBudget(t *testing.T) {
	chat := agenttest.NewChat(t, func(int, agenttest.ChatRequest) agenttest.ChatReply {
		return agenttest.ChatReply{Text: goodText}
	})
	js := jobs(10)
	budget := 3*js[0].Cost() + 50
	got, tot := collect(context.Background(), Endpoint{URL: chat.URL, Model: "m"}, js, Options{Jobs: 2, MaxTokens: budget})
	if tot.Tokens > budget {
		t.Fatalf("spent %d of a budget of %d", tot.Tokens, budget)
	}
	if tot.Summarized < 3 || tot.NotSent == 0 || tot.Summarized+tot.NotSent != 10 {
		t.Fatalf("totals %+v", tot)
	}
	if n := len(chat.Requests()); n != tot.Summarized {
		t.Fatalf("%d requests sent for %d summaries", n, tot.Summarized)
	}
	for _, o := range got {
		if o.NotSent != "" && !strings.Contains(o.NotSent, "budget") {
			t.Fatalf("not sent: %q", o.NotSent)
		}
	}
}

func TestRunInterruptedKeepsWhatFinished(t *testing.T) {
	chat := agenttest.NewChat(t, func(n int, _ agenttest.ChatRequest) agenttest.ChatReply {
		if n < 3 {
			return agenttest.ChatReply{Text: goodText}
		}
		return agenttest.ChatReply{Text: goodText, Delay: time.Minute}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []Outcome
	tot := Run(ctx, Endpoint{URL: chat.URL, Model: "m"}, jobs(10), Options{Jobs: 1}, func(o Outcome) {
		got = append(got, o)
		if len(got) == 3 {
			cancel()
		}
	})
	if tot.Summarized != 3 || tot.NotSent != 7 || tot.Stopped != "interrupted" || len(got) != 10 {
		t.Fatalf("totals %+v, %d outcomes", tot, len(got))
	}
}

// TestRunIsItsModel: whatever each attempt at each file is answered with,
// every job has exactly one outcome, and it is the one the answers call
// for: a summary only from an answer judged one, a refusal from an answer
// judged none, an error from an error not retried or retried to the end.
func TestRunIsItsModel(t *testing.T) {
	replies := []agenttest.ChatReply{
		{Text: goodText}, {Text: ""}, {Text: goodText, Finish: "length"}, {Status: 429}, {Status: 500},
		{Status: 400}, {Body: "not json"}, {Text: goodText, Cut: true},
	}
	var mu sync.Mutex
	var plans map[string][]int
	var tries map[string]int
	chat := agenttest.NewChat(t, func(_ int, req agenttest.ChatRequest) agenttest.ChatReply {
		mu.Lock()
		defer mu.Unlock()
		p := pathOf(req)
		k := tries[p]
		tries[p]++
		return replies[plans[p][k]]
	})
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(t, "files")
		attempts := rapid.IntRange(1, 3).Draw(t, "attempts")
		js := jobs(n)
		drawn := map[string][]int{}
		for _, j := range js {
			drawn[j.Path] = rapid.SliceOfN(rapid.IntRange(0, len(replies)-1), attempts, attempts).Draw(t, j.Path)
		}
		mu.Lock()
		plans, tries = drawn, map[string]int{}
		mu.Unlock()
		stream := rapid.Bool().Draw(t, "stream")
		got, _ := collect(context.Background(), Endpoint{URL: chat.URL, Model: "m", Stream: stream}, js,
			Options{Jobs: rapid.IntRange(1, 4).Draw(t, "jobs"), Attempts: attempts, Sleep: noSleep})
		mu.Lock()
		asked := maps.Clone(tries)
		mu.Unlock()
		if len(got) != n {
			t.Fatalf("%d outcomes for %d jobs", len(got), n)
		}
		for _, j := range js {
			o := got[j.Path]
			want, asks := expected(replies, drawn[j.Path], stream)
			var e *Error
			switch {
			case o.Attempts != asks || asked[j.Path] != asks:
				t.Fatalf("%s (plan %v): %d attempts, %d requests, want %d", j.Path, drawn[j.Path], o.Attempts, asked[j.Path], asks)
			case want == "summary" && o.Summary != goodText,
				want == "refused" && (o.Refused == "" || o.Summary != ""),
				want == "error" && (!errors.As(o.Err, &e) || o.Summary != ""):
				t.Fatalf("%s (plan %v): outcome %+v, want %s", j.Path, drawn[j.Path], o, want)
			}
		}
	})
}

// expected is the model: attempts go on while the answer is an error
// worth retrying and attempts are left; it says the outcome and how many
// requests were made.
func expected(replies []agenttest.ChatReply, plan []int, stream bool) (string, int) {
	for k, i := range plan {
		asks := k + 1
		r := replies[i]
		retryable := r.Status == 429 || r.Status >= 500
		switch {
		case retryable && k < len(plan)-1:
			continue
		case r.Status != 0 || r.Body != "" || r.Cut && stream: // a cut stream; cut is whole when not streamed
			return "error", asks
		case r.Text == "" || r.Finish == "length":
			return "refused", asks
		}
		return "summary", asks
	}
	return "error", len(plan)
}
