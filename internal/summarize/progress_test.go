package summarize

import (
	"strings"
	"sync"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	tests := []struct {
		done, total, tokens int
		elapsed             time.Duration
		want                string
	}{
		{0, 2000, 0, 0, "summarize: 0/2000 files · 0 tokens · 0s"},
		{0, 2000, 0, 3 * time.Second, "summarize: 0/2000 files · 0 tokens · 3s"},
		{500, 2000, 48210, 100 * time.Second, "summarize: 500/2000 files · 48k tokens · 5.0 files/s · 5m0s left"},
		{2000, 2000, 1_250_000, 400 * time.Second, "summarize: 2000/2000 files · 1.2M tokens · 5.0 files/s · 0s left"},
		{3, 10, 1500, 6 * time.Second, "summarize: 3/10 files · 1.5k tokens · 0.5 files/s · 14s left"},
	}
	for _, tt := range tests {
		if got := Line(tt.done, tt.total, tt.tokens, tt.elapsed); got != tt.want {
			t.Errorf("Line(%d, %d, %d, %v) = %q, want %q", tt.done, tt.total, tt.tokens, tt.elapsed, got, tt.want)
		}
	}
}

// syncBuffer is a strings.Builder the progress goroutine may write to.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// TestProgressDrawsEachOutcomeAndClears: every outcome redraws the line,
// and Stop leaves the terminal's line empty.
func TestProgressDrawsEachOutcomeAndClears(t *testing.T) {
	var buf syncBuffer
	p := StartProgress(&buf, 2, nil)
	p.Done(Outcome{Tokens: 100})
	p.Done(Outcome{Tokens: 50})
	p.Stop()
	out := buf.b.String()
	if !strings.Contains(out, "summarize: 1/2 files · 100 tokens") || !strings.Contains(out, "summarize: 2/2 files · 150 tokens") {
		t.Fatalf("progress drew %q", out)
	}
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Fatalf("the line was not cleared: %q", out)
	}
	StartProgress(nil, 1, nil).Stop() // nothing to draw on: nothing drawn, no goroutine left
}
