package summarize

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Job is one file to summarize.
type Job struct {
	Path, Lang string
	// Text is what is sent: the file's text, redacted.
	Text string
	// SHA256 is the digest of the file's bytes as they were read: the
	// content the summary will describe.
	SHA256 string
	// Tokens is the request's size in tokens, counted here.
	Tokens int
}

// Cost is what a job may spend: its request and the longest answer.
func (j Job) Cost() int { return j.Tokens + AnswerTokens }

// Outcome is what became of one job; exactly one of Summary, Err,
// Refused and NotSent is set.
type Outcome struct {
	Job     Job
	Summary string
	// Err is why the request failed, after its attempts.
	Err error
	// Refused says why the answer is not a summary.
	Refused string
	// NotSent says why the job was never sent, or its answer never came
	// (the budget, an unreachable endpoint, an interruption).
	NotSent string
	// Tokens are what the request spent: the endpoint's count, or the
	// request and answer counted here when it gave none.
	Tokens   int
	Attempts int
}

// Options tune a batch.
type Options struct {
	Jobs int // requests at once; 0 is 1
	// MaxTokens is the batch's budget; 0 is none. A job is not sent when
	// its cost would take what is spent and reserved past it.
	MaxTokens int
	// Attempts per job for an error worth retrying (timeouts, 429, 5xx);
	// 0 is 3.
	Attempts int
	// Backoff is the first wait before a retry (doubling); 0 is a second.
	// A server's Retry-After is honoured up to MaxWait (0: a minute).
	Backoff, MaxWait time.Duration
	// Sleep waits; nil waits on the clock.
	Sleep func(context.Context, time.Duration) error
	// Count counts an answer's tokens when the endpoint does not.
	Count func(string) int
}

// UnreachableInARow is how many files in a row may find the endpoint
// unreachable before the batch stops sending.
const UnreachableInARow = 3

// Totals count a batch's outcomes.
type Totals struct {
	Summarized, Refused, Failed, NotSent int
	Tokens                               int
	// Stopped says why the batch stopped sending early, if it did.
	Stopped string
}

// Add counts one outcome.
func (t *Totals) Add(o Outcome) {
	t.Tokens += o.Tokens
	switch {
	case o.Summary != "":
		t.Summarized++
	case o.Refused != "":
		t.Refused++
	case o.Err != nil:
		t.Failed++
	default:
		t.NotSent++
	}
}

// Run sends the jobs, at most opt.Jobs at a time, and hands every job's
// outcome to done, on the calling goroutine, as each finishes.
func Run(ctx context.Context, ep Endpoint, jobs []Job, opt Options, done func(Outcome)) Totals {
	opt = opt.withDefaults()
	results := make(chan Outcome)
	var tot Totals
	report := func(o Outcome) {
		tot.Add(o)
		done(o)
	}
	next, inflight, reserved, unreachable := 0, 0, 0, 0
	for next < len(jobs) || inflight > 0 {
		if tot.Stopped == "" && ctx.Err() != nil {
			tot.Stopped = "interrupted"
		}
		for tot.Stopped == "" && next < len(jobs) && inflight < opt.Jobs {
			j := jobs[next]
			if opt.MaxTokens > 0 && tot.Tokens+reserved+j.Cost() > opt.MaxTokens {
				if inflight > 0 {
					break // what is in flight may spend less than it reserved
				}
				next++
				report(Outcome{Job: j, NotSent: fmt.Sprintf("its %d tokens would pass the budget of %d (%d spent)", j.Cost(), opt.MaxTokens, tot.Tokens)})
				continue
			}
			next++
			inflight++
			reserved += j.Cost()
			go func() { results <- send(ctx, ep, j, opt) }()
		}
		if tot.Stopped != "" && next < len(jobs) {
			for _, j := range jobs[next:] {
				report(Outcome{Job: j, NotSent: tot.Stopped})
			}
			next = len(jobs)
		}
		if inflight == 0 {
			continue
		}
		o := <-results
		inflight--
		reserved -= o.Job.Cost()
		var e *Error
		if errors.As(o.Err, &e) && e.Kind == Unreachable {
			unreachable++
		} else if o.NotSent == "" {
			unreachable = 0
		}
		if unreachable >= UnreachableInARow && tot.Stopped == "" {
			tot.Stopped = fmt.Sprintf("the endpoint could not be reached %d times in a row", unreachable)
		}
		report(o)
	}
	return tot
}

func (opt Options) withDefaults() Options {
	if opt.Jobs < 1 {
		opt.Jobs = 1
	}
	if opt.Attempts < 1 {
		opt.Attempts = 3
	}
	if opt.Backoff <= 0 {
		opt.Backoff = time.Second
	}
	if opt.MaxWait <= 0 {
		opt.MaxWait = time.Minute
	}
	if opt.Sleep == nil {
		opt.Sleep = sleep
	}
	if opt.Count == nil {
		opt.Count = func(s string) int { return len(s) / 4 }
	}
	return opt
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// send makes one job's request, with retries, and judges the answer.
func send(ctx context.Context, ep Endpoint, j Job, opt Options) Outcome {
	o := Outcome{Job: j}
	msgs := Messages(j.Path, j.Lang, j.Text)
	for {
		o.Attempts++
		a, err := ep.Complete(ctx, msgs, AnswerTokens)
		if ctx.Err() != nil {
			o.NotSent = "interrupted"
			return o
		}
		if err == nil {
			o.Tokens = j.Tokens + opt.Count(a.Text)
			if a.Reported {
				o.Tokens = a.PromptTokens + a.AnswerTokens
			}
			o.Summary, o.Refused = Judge(a, j.Path, j.Text)
			return o
		}
		wait, again := retry(err, o.Attempts, opt)
		if !again {
			o.Err = err
			return o
		}
		if opt.Sleep(ctx, wait) != nil {
			o.NotSent = "interrupted"
			return o
		}
	}
}

// retry says whether to try err's request again, and after how long.
func retry(err error, attempts int, opt Options) (time.Duration, bool) {
	var e *Error
	if !errors.As(err, &e) || !e.Retryable() || attempts >= opt.Attempts {
		return 0, false
	}
	if e.RetryAfter > opt.MaxWait {
		return 0, false
	}
	if e.RetryAfter > 0 {
		return e.RetryAfter, true
	}
	return opt.Backoff << (attempts - 1), true
}
