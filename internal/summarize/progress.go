package summarize

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress draws a batch's progress on a terminal: files done of all,
// tokens spent, the rate and the time left, redrawn four times a second
// and on every outcome.
type Progress struct {
	w     io.Writer
	total int
	now   func() time.Time
	start time.Time

	mu     sync.Mutex
	done   int
	tokens int
	quit   chan struct{}
	ended  chan struct{}
}

// StartProgress starts drawing on w; nil w draws nothing.
func StartProgress(w io.Writer, total int, now func() time.Time) *Progress {
	if now == nil {
		now = time.Now
	}
	p := &Progress{w: w, total: total, now: now, start: now(), quit: make(chan struct{}), ended: make(chan struct{})}
	if w == nil {
		close(p.ended)
		return p
	}
	go func() {
		defer close(p.ended)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.draw()
			case <-p.quit:
				fmt.Fprint(p.w, "\r\x1b[K")
				return
			}
		}
	}()
	return p
}

// Done counts one outcome.
func (p *Progress) Done(o Outcome) {
	p.mu.Lock()
	p.done++
	p.tokens += o.Tokens
	p.mu.Unlock()
	if p.w != nil {
		p.draw()
	}
}

// Stop clears the line.
func (p *Progress) Stop() {
	if p.w != nil {
		close(p.quit)
	}
	<-p.ended
}

func (p *Progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, "\r\x1b[K"+Line(p.done, p.total, p.tokens, p.now().Sub(p.start)))
}

// Line is the progress line: files, tokens, rate and time left.
func Line(done, total, tokens int, elapsed time.Duration) string {
	line := fmt.Sprintf("summarize: %d/%d files · %s tokens", done, total, short(tokens))
	if done == 0 || elapsed <= 0 {
		return line + " · " + elapsed.Round(time.Second).String()
	}
	rate := float64(done) / elapsed.Seconds()
	left := time.Duration(float64(total-done) / rate * float64(time.Second))
	return line + fmt.Sprintf(" · %.1f files/s · %s left", rate, left.Round(time.Second))
}

func short(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
