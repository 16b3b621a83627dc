package registry

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
)

// progressAfter: hashing shorter than this shows nothing.
const progressAfter = 500 * time.Millisecond

// startProgress reports hashing progress (files/s, ETA) on w about four
// times a second, once it has lasted progressAfter; nil w is quiet.
func startProgress(w io.Writer, total int64, opt *freshness.DigestOptions) (stop func()) {
	if w == nil || total == 0 {
		return func() {}
	}
	opt.Done = new(atomic.Int64)
	done := opt.Done
	quit, finished := make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		shown := false
		for {
			select {
			case <-t.C:
				elapsed := time.Since(start)
				if elapsed < progressAfter {
					continue
				}
				n := done.Load()
				rate := float64(n) / elapsed.Seconds()
				eta := "?"
				if rate > 0 {
					eta = (time.Duration(float64(total-n)/rate) * time.Second).Round(time.Second).String()
				}
				fmt.Fprintf(w, "\r\x1b[Kregistry: %d/%d files · %.0f files/s · ETA %s", n, total, rate, eta)
				shown = true
			case <-quit:
				if shown {
					fmt.Fprint(w, "\r\x1b[K")
				}
				return
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
	}
}
