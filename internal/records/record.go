package records

import (
	"time"

	"github.com/freshctx/freshctx/internal/facts"
	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/tokens"
)

// Record is one captured run, as `run`, `capture` and `show` report it.
type Record struct {
	ID             int64             `json:"id"`
	Kind           string            `json:"kind"`
	Command        string            `json:"command"`
	Label          string            `json:"label"`
	Cwd            string            `json:"cwd"`
	ExitCode       *int              `json:"exit_code"`
	DurationMS     int64             `json:"duration_ms"`
	Intent         string            `json:"intent"`
	Compressor     string            `json:"compressor"`
	Digest         string            `json:"digest"`
	Omitted        string            `json:"omitted,omitempty"`
	Files          []File            `json:"files"`
	RawBytes       int64             `json:"raw_bytes"`
	StdoutBytes    int64             `json:"stdout_bytes"`
	StderrBytes    int64             `json:"stderr_bytes"`
	RawTokens      int               `json:"raw_tokens"`
	RawTokensExact bool              `json:"raw_tokens_exact"`
	DigestTokens   int               `json:"digest_tokens"`
	Redactions     int               `json:"redactions"`
	Git            Git               `json:"git"`
	CreatedAt      time.Time         `json:"created_at"`
	Freshness      *freshness.Result `json:"freshness,omitempty"`
	// NotKept says why the record could not be stored (ID is then 0): the
	// digest is all that remains of the output.
	NotKept string `json:"not_kept,omitempty"`
	// Whole says the digest is the whole output, line for line: nothing
	// was left out, so the record needs no pointer to its raw output.
	Whole bool `json:"-"`

	root  string
	stamp freshness.Stamp
	facts []facts.Fact
	// factText is what the full-text index holds for the facts.
	factText string
	blobs    [2]string // stdout, stderr digests, "" when empty
	// inputs is the input scope: root-relative globs; inputsGiven says
	// they were given (--inputs), not chosen from the command.
	inputs      []string
	inputsGiven bool
	// fileStart is the command's start by the file clock
	// (freshness.FileClock), which may lag CreatedAt by a timer tick: a
	// file written in the command's first tick can carry a time before
	// CreatedAt, never before fileStart. Zero for records made before it
	// was kept.
	fileStart time.Time
}

// inputsSince is when the input scope's changes are counted from: the
// start by the file clock, or CreatedAt for a record without one.
func (r *Record) inputsSince() time.Time {
	if !r.fileStart.IsZero() && r.fileStart.Before(r.CreatedAt) {
		return r.fileStart
	}
	return r.CreatedAt
}

// NotCounted is the token count of a record whose counts are made when
// first asked for (Options.TokensLater).
const NotCounted = tokens.NotCounted

// Counted reports whether the record's token counts are made.
func (r *Record) Counted() bool { return r.RawTokens != NotCounted && r.DigestTokens != NotCounted }

// File is a file the output referenced.
type File struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
}

// Git is the repository state when the record was made.
type Git struct {
	Branch string `json:"branch"`
	Head   string `json:"head"`
	Dirty  bool   `json:"dirty"`
}

// Stream names one of a record's raw outputs.
type Stream int

// The two streams.
const (
	Stdout Stream = iota
	Stderr
)

// ParseStream reads "stdout" or "stderr".
func ParseStream(s string) (Stream, bool) {
	switch s {
	case "stdout":
		return Stdout, true
	case "stderr":
		return Stderr, true
	}
	return 0, false
}

func (s Stream) String() string {
	if s == Stderr {
		return "stderr"
	}
	return "stdout"
}
