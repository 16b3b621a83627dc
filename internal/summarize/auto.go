package summarize

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/freshctx/freshctx/internal/artifact"
	"github.com/freshctx/freshctx/internal/redact"
	"github.com/freshctx/freshctx/internal/registry"
	"github.com/freshctx/freshctx/internal/sha"
	"github.com/freshctx/freshctx/internal/tokens"
)

// ArtifactType is the artifact type for a file's summary, keyed by the
// file's root-relative path; Auto renews the stale ones it writes anew.
const ArtifactType = "file_summary"

// Auto is `registry summarize --auto`: plan what to send, send it, store
// each summary as it arrives.
type Auto struct {
	Registry *registry.Service
	// Artifacts, when set, has the stale file_summary artifacts of the files
	// summarized renewed with the new summary.
	Artifacts *artifact.Service
	Endpoint  Endpoint
	// MaxFileSize is the largest file sent, in bytes.
	MaxFileSize int64
	Options     Options
}

// Plan is what a run would send, and what it leaves out.
type Plan struct {
	Jobs    []Job
	Skipped []Skipped
}

// Skipped is a file not sent, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Plan lists the files to send: paths, or every registered file without a
// current summary when none are given (the registry is synced first).
func (a *Auto) Plan(ctx context.Context, paths []string) (*Plan, error) {
	if len(paths) == 0 {
		if _, err := a.Registry.Sync(ctx); err != nil {
			return nil, fmt.Errorf("bring the registry up to date: %w", err)
		}
		wanted, err := a.Registry.SummariesWanted(ctx)
		if err != nil {
			return nil, err
		}
		for _, w := range wanted {
			paths = append(paths, a.Registry.WS.Abs(w.Path))
		}
	}
	p := &Plan{}
	seen := map[string]bool{}
	for _, path := range paths {
		in, err := a.Registry.SummaryInput(path, a.MaxFileSize)
		if err != nil {
			return nil, err
		}
		if seen[in.Path] {
			continue
		}
		seen[in.Path] = true
		if in.Skip != "" {
			p.Skipped = append(p.Skipped, Skipped{Path: in.Path, Reason: in.Skip})
			continue
		}
		p.Jobs = append(p.Jobs, jobOf(in))
	}
	return p, nil
}

// jobOf is the request for a file: its text redacted line by line, and
// the request's size in tokens.
func jobOf(in registry.Input) Job {
	var r redact.Redactor
	var b strings.Builder
	for line := range bytes.Lines(in.Content) {
		body := bytes.TrimSuffix(line, []byte("\n"))
		if out := r.Line(body); out != nil || len(body) == 0 {
			b.Write(out)
			b.WriteByte('\n')
		}
	}
	text := b.String()
	if !bytes.HasSuffix(in.Content, []byte("\n")) {
		text = strings.TrimSuffix(text, "\n")
	}
	j := Job{Path: in.Path, Lang: in.Lang, Text: text, SHA256: sha.Bytes(in.Content).String()}
	for _, m := range Messages(j.Path, j.Lang, j.Text) {
		j.Tokens += tokens.Count(m.Content) + 4 // each message's framing
	}
	return j
}

// Result is what a run did.
type Result struct {
	Endpoint      string    `json:"endpoint"`
	Model         string    `json:"model"`
	PromptVersion string    `json:"prompt_version"`
	Summarized    []string  `json:"summarized"`
	Refused       []Skipped `json:"refused"`
	Failed        []Skipped `json:"failed"`
	NotSent       []Skipped `json:"not_sent"`
	Skipped       []Skipped `json:"skipped"`
	// ArtifactsRenewed are the file_summary artifacts given the new
	// summary.
	ArtifactsRenewed []string `json:"artifacts_renewed"`
	Tokens           int      `json:"tokens"`
	Stopped          string   `json:"stopped,omitempty"`
}

// storeBatch bounds the summaries stored in one transaction: a storer
// takes what has come in, up to this, while the requests go on.
const storeBatch = 64

// Run sends the plan's jobs and stores the summaries as they arrive;
// progress, when set, is told of every answer as it comes. An error is a
// run that could not start: nothing was sent.
func (a *Auto) Run(ctx context.Context, p *Plan, progress func(Outcome)) (*Result, error) {
	res := &Result{Endpoint: a.Endpoint.Name(), Model: a.Endpoint.Model, PromptVersion: PromptVersion,
		Summarized: []string{}, Refused: []Skipped{}, Failed: []Skipped{}, NotSent: []Skipped{},
		Skipped: p.Skipped, ArtifactsRenewed: []string{}}
	if res.Skipped == nil {
		res.Skipped = []Skipped{}
	}
	opt := a.Options
	if opt.Count == nil {
		opt.Count = tokens.Count
	}
	src := &registry.Source{Model: a.Endpoint.Model, Endpoint: res.Endpoint, Prompt: PromptVersion}
	var kept map[string]bool // the file_summary artifacts there are
	if a.Artifacts != nil {
		var err error
		if kept, err = a.Artifacts.Keys(ctx, ArtifactType); err != nil {
			return nil, err
		}
	}
	var mu sync.Mutex // res, between the two goroutines
	answered := make(chan Outcome, storeBatch)
	stored := make(chan struct{})
	go func() {
		defer close(stored)
		// Stored even when the run is cancelled meanwhile: the answers
		// came, and storing them is quick.
		a.storer(context.WithoutCancel(ctx), answered, src, kept, res, &mu)
	}()
	tot := Run(ctx, a.Endpoint, p.Jobs, opt, func(o Outcome) {
		if o.Summary != "" {
			answered <- o
		} else {
			mu.Lock()
			res.add(o)
			mu.Unlock()
		}
		if progress != nil {
			progress(o)
		}
	})
	close(answered)
	<-stored
	res.Tokens, res.Stopped = tot.Tokens, tot.Stopped
	return res, nil
}

// storer stores the summaries that came in, as many as have, up to
// storeBatch a transaction, until in is closed.
func (a *Auto) storer(ctx context.Context, in <-chan Outcome, src *registry.Source, kept map[string]bool, res *Result, mu *sync.Mutex) {
	var batch []Outcome
	for o := range in {
		batch = append(batch[:0], o)
	more:
		for len(batch) < storeBatch {
			select {
			case o, ok := <-in:
				if !ok {
					break more
				}
				batch = append(batch, o)
			default:
				break more
			}
		}
		a.store(ctx, batch, src, kept, res, mu)
		mu.Lock()
		for _, o := range batch {
			res.add(o)
		}
		mu.Unlock()
	}
}

func (r *Result) add(o Outcome) {
	switch {
	case o.Summary != "":
		r.Summarized = append(r.Summarized, o.Job.Path)
	case o.Refused != "":
		r.Refused = append(r.Refused, Skipped{o.Job.Path, o.Refused})
	case o.Err != nil:
		r.Failed = append(r.Failed, Skipped{o.Job.Path, o.Err.Error()})
	default:
		r.NotSent = append(r.NotSent, Skipped{o.Job.Path, o.NotSent})
	}
}

// store keeps summaries, each against the bytes it describes, in one
// transaction, and renews the stale file_summary artifacts of their files;
// a file changed since it was read fails, and nothing is stored for it.
func (a *Auto) store(ctx context.Context, batch []Outcome, src *registry.Source, kept map[string]bool, res *Result, mu *sync.Mutex) {
	items := make([]registry.Summary, len(batch))
	for i, o := range batch {
		items[i] = registry.Summary{Path: a.Registry.WS.Abs(o.Job.Path), Summary: o.Summary,
			Want: o.Job.SHA256, By: registry.ByModel, Source: src}
	}
	errs, err := a.Registry.SummarizeEach(ctx, items)
	for i := range batch {
		e := err
		if err == nil {
			e = errs[i]
		}
		if errors.Is(e, registry.ErrOtherContent) {
			e = errors.New("the file changed while its summary was written; run again to summarize it as it is now")
		}
		if e != nil {
			batch[i].Summary, batch[i].Err = "", e
		}
	}
	for _, o := range batch {
		if o.Summary != "" && kept[o.Job.Path] {
			a.renewOne(ctx, o, src, res, mu)
		}
	}
}

// renewOne renews the file_summary artifact of a file summarized when it
// is stale.
func (a *Auto) renewOne(ctx context.Context, o Outcome, src *registry.Source, res *Result, mu *sync.Mutex) {
	renewed, err := a.renew(ctx, o, src)
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		res.Failed = append(res.Failed, Skipped{o.Job.Path, "the summary is stored, its artifact not renewed: " + err.Error()})
	} else if renewed {
		res.ArtifactsRenewed = append(res.ArtifactsRenewed, o.Job.Path)
	}
}

// renew puts the summary as the file's file_summary artifact when one is
// kept and stale. The artifact is put only when the file still holds the
// bytes summarized, and taken back when it changed while it was put.
func (a *Auto) renew(ctx context.Context, o Outcome, src *registry.Source) (bool, error) {
	got, err := a.Artifacts.Get(ctx, artifact.GetRequest{Type: ArtifactType, Key: o.Job.Path})
	if err != nil || got.Outcome != artifact.Stale {
		return false, err
	}
	same := func() (bool, error) {
		h, err := a.Artifacts.Hashes(ctx, []string{o.Job.Path})
		return h[o.Job.Path] == o.Job.SHA256, err
	}
	if ok, err := same(); err != nil || !ok {
		return false, err
	}
	_, err = a.Artifacts.Put(ctx, artifact.PutRequest{Type: ArtifactType, Key: o.Job.Path, Deps: []string{o.Job.Path},
		Producer: fmt.Sprintf("model %s at %s (prompt %s)", src.Model, src.Endpoint, src.Prompt),
		Content:  strings.NewReader(o.Summary)})
	if err != nil {
		return false, err
	}
	if ok, err := same(); err != nil || !ok {
		_, ierr := a.Artifacts.Invalidate(ctx, artifact.InvalidateRequest{Type: ArtifactType, Key: o.Job.Path})
		return false, errors.Join(errors.New("the file changed while the artifact was put; it was invalidated"), err, ierr)
	}
	return true, nil
}

// DryRun is what a run would send, and to where.
type DryRun struct {
	DryRun    bool      `json:"dry_run"`
	Endpoint  string    `json:"endpoint"`
	Model     string    `json:"model"`
	WouldSend []Planned `json:"would_send"`
	Skipped   []Skipped `json:"skipped"`
	// Bytes is what the files' text weighs; Tokens what the requests and
	// their longest answers may spend.
	Bytes  int `json:"bytes"`
	Tokens int `json:"tokens"`
}

// Planned is one file a run would send.
type Planned struct {
	Path   string `json:"path"`
	Bytes  int    `json:"bytes"`
	Tokens int    `json:"tokens"`
}

// DryRun describes the plan; ep is empty when no endpoint is configured.
func (p *Plan) DryRun(ep Endpoint) *DryRun {
	d := &DryRun{DryRun: true, Model: ep.Model, WouldSend: []Planned{}, Skipped: p.Skipped}
	if ep.URL != "" {
		d.Endpoint = ep.Name()
	}
	if d.Skipped == nil {
		d.Skipped = []Skipped{}
	}
	for _, j := range p.Jobs {
		d.WouldSend = append(d.WouldSend, Planned{Path: j.Path, Bytes: len(j.Text), Tokens: j.Cost()})
		d.Bytes += len(j.Text)
		d.Tokens += j.Cost()
	}
	return d
}
