package registry

import (
	"context"
	"time"
)

// Verdicts of verification.
const (
	Match    = "match"
	Mismatch = "mismatch"
	Missing  = "missing"
	New      = "new"
)

// Verdict is what verification found for one path.
type Verdict struct {
	Path    string `json:"path"`
	Verdict string `json:"verdict"`

	carried bool // a new path that took over a moved file's summary
}

// Counts are the verdicts counted.
type Counts struct {
	Match    int `json:"match"`
	Mismatch int `json:"mismatch"`
	Missing  int `json:"missing"`
	New      int `json:"new"`
}

func (c *Counts) add(v string) {
	switch v {
	case Match:
		c.Match++
	case Mismatch:
		c.Mismatch++
	case Missing:
		c.Missing++
	case New:
		c.New++
	}
}

// VerifyResult is what `registry verify` found (and applied, with --apply).
type VerifyResult struct {
	Head     string    `json:"head"`
	Verdicts []Verdict `json:"verdicts"`
	Counts
	Candidates int    `json:"candidates"`
	Fallback   string `json:"fallback,omitempty"`
	Applied    bool   `json:"applied"`
	ElapsedMS  int64  `json:"elapsed_ms"`
}

// Verify examines the candidates and reports a verdict for each; with apply
// it also writes them, as sync's verify does.
func (s *Service) Verify(ctx context.Context, apply bool) (*VerifyResult, error) {
	start := time.Now()
	st, err := s.readState(ctx)
	if err != nil {
		return nil, err
	}
	ex, err := s.examine(ctx, st)
	if err != nil {
		return nil, err
	}
	if apply {
		if err := s.apply(ctx, ex); err != nil {
			return nil, err
		}
	}
	res := &VerifyResult{Head: ex.head, Verdicts: ex.verdicts, Counts: ex.counts, Candidates: ex.candidates,
		Fallback: ex.fallback, Applied: apply, ElapsedMS: time.Since(start).Milliseconds()}
	if res.Verdicts == nil {
		res.Verdicts = []Verdict{}
	}
	return res, nil
}
