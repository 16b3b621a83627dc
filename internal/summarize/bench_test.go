package summarize

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/agenttest"
	"github.com/freshctx/freshctx/internal/artifact"
	"github.com/freshctx/freshctx/internal/registry"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/teststore"
)

// BenchmarkAutoBootstrap summarizes every file of a 2,000-file repository
// (200 with -short) from nothing, 4 requests at a time, against a stand-in.
//
// instant: the stand-in answers at once, so what is timed is freshctx's
// own work per file: reading, redacting and counting each file, judging
// each answer, storing each summary with a copy of the file. In turn, in
// the same rounds, the baseline sends the same requests at the same
// concurrency and does nothing else (the HTTP and the stand-in's cost).
// It reports both per file, freshctx's overhead per file and their ratio.
//
// model_20ms: each answer takes 20 ms, as a fast local model's would; the
// run should keep 4 requests in flight and reach 4 files per 20 ms. It
// reports the most requests the stand-in held at once and the rate
// against that ideal.
func BenchmarkAutoBootstrap(b *testing.B) {
	files := 2000
	if testing.Short() {
		files = 200
	}
	const jobsAtOnce = 4
	r := benchRepo(b, files)
	b.Run("instant", func(b *testing.B) {
		ep, _ := benchChat(b, 0)
		var plain, auto time.Duration
		for i := 0; b.Loop(); i++ {
			run := func() { auto += timeAuto(b, r, ep, jobsAtOnce, files) }
			base := func() { plain += plainRequests(b, ep, r, files, jobsAtOnce) }
			if i%2 == 0 {
				run()
				base()
			} else {
				base()
				run()
			}
		}
		n := float64(b.N * files)
		b.ReportMetric(float64(auto.Microseconds())/n/1000, "ms/file")
		b.ReportMetric(float64(plain.Microseconds())/n/1000, "plain_ms/file")
		b.ReportMetric(float64((auto-plain).Microseconds())/n/1000, "overhead_ms/file")
		b.ReportMetric(float64(auto)/float64(plain), "x_plain")
	})
	b.Run("model_20ms", func(b *testing.B) {
		const latency = 20 * time.Millisecond
		ep, most := benchChat(b, latency)
		var auto time.Duration
		for b.Loop() {
			auto += timeAuto(b, r, ep, jobsAtOnce, files)
		}
		rate := float64(b.N*files) / auto.Seconds()
		ideal := float64(jobsAtOnce) / latency.Seconds()
		b.ReportMetric(rate, "files/s")
		b.ReportMetric(rate/ideal, "of_ideal")
		b.ReportMetric(float64(most.Load()), "max_at_once")
	})
}

// benchChat is a stand-in answering after latency; most counts the most
// requests it held at once.
func benchChat(b *testing.B, latency time.Duration) (Endpoint, *atomic.Int32) {
	var inflight, most atomic.Int32
	chat := agenttest.NewChat(b, func(_ int, req agenttest.ChatRequest) agenttest.ChatReply {
		n := inflight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		defer inflight.Add(-1)
		time.Sleep(latency)
		return agenttest.ChatReply{Text: "Summary of " + pathOf(req) + ": one variable and its comment."}
	})
	return Endpoint{URL: chat.URL, Model: "m", Stream: true, Timeout: time.Minute}, &most
}

// timeAuto bootstraps a new store's registry (not timed), then times a
// summarize --auto of every file.
func timeAuto(b *testing.B, r *testgit.Repo, ep Endpoint, jobs, files int) time.Duration {
	ctx := context.Background()
	a := benchAuto(b, r, ep, jobs)
	if _, err := a.Registry.Sync(ctx); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	plan, err := a.Plan(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	res, err := a.Run(ctx, plan, nil)
	took := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Summarized) != files {
		b.Fatalf("summarized %d of %d files: %+v", len(res.Summarized), files, res.Failed[:min(3, len(res.Failed))])
	}
	return took
}

func benchRepo(b *testing.B, files int) *testgit.Repo {
	r := testgit.New(b)
	for i := range files {
		p := r.Path(fmt.Sprintf("src/m%02d/f%04d.go", i%40, i))
		if i < 40 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		body := fmt.Sprintf("package m\n\n// F%d is file %d, with a comment long enough to read like code.\nvar F%d = %d\n", i, i, i, i)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	r.Commit("init")
	return r
}

func benchAuto(b *testing.B, r *testgit.Repo, ep Endpoint, jobs int) *Auto {
	ws := teststore.Workspace(b, r.Dir)
	st := teststore.Open(b, "", store.Options{})
	now := func() time.Time { return time.Now().Add(time.Minute) }
	return &Auto{Registry: &registry.Service{WS: ws, Store: st, Cwd: r.Dir, Now: now},
		Artifacts: &artifact.Service{WS: ws, Store: st, Cwd: r.Dir}, Endpoint: ep, MaxFileSize: 64 << 10,
		Options: Options{Jobs: jobs}}
}

// plainRequests sends the files' requests, jobs at a time, and nothing
// else: the baseline.
func plainRequests(b *testing.B, ep Endpoint, r *testgit.Repo, files, jobs int) time.Duration {
	msgs := make([][]Message, files)
	for i := range files {
		p := fmt.Sprintf("src/m%02d/f%04d.go", i%40, i)
		msgs[i] = Messages(p, "go", r.Read(p))
	}
	start := time.Now()
	next := atomic.Int32{}
	done := make(chan error, jobs)
	for range jobs {
		go func() {
			for i := int(next.Add(1)) - 1; i < files; i = int(next.Add(1)) - 1 {
				if _, err := ep.Complete(context.Background(), msgs[i], AnswerTokens); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range jobs {
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}
