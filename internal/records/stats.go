package records

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/freshctx/freshctx/internal/store"
)

// Savings is what digests saved for a group of records, counted with the
// real tokenizer: a record saves raw − digest tokens, never less than 0.
type Savings struct {
	Records      int     `json:"records"`
	RawTokens    int64   `json:"raw_tokens"`
	DigestTokens int64   `json:"digest_tokens"`
	SavedTokens  int64   `json:"saved_tokens"`
	SavingsPct   float64 `json:"savings_pct"`
	// Estimated counts records whose raw token count was extrapolated from
	// a sample (outputs over 1 MiB).
	Estimated int `json:"estimated"`
}

// CommandSavings is Savings for one command family ("go test", "cargo build").
type CommandSavings struct {
	Command string `json:"command"`
	Savings
}

// Stats is the whole store's savings, and per command family, most saved
// first.
type Stats struct {
	Savings
	ByCommand []CommandSavings `json:"by_command"`
}

func (sv *Savings) add(raw, digest int64, exact bool) {
	sv.Records++
	sv.RawTokens += raw
	sv.DigestTokens += digest
	sv.SavedTokens += max(raw-digest, 0)
	if !exact {
		sv.Estimated++
	}
}

func (sv *Savings) finish() {
	if sv.RawTokens > 0 {
		sv.SavingsPct = math.Round(1000*float64(sv.SavedTokens)/float64(sv.RawTokens)) / 10
	}
}

// Stats sums the savings of every record, first making the counts of
// those kept without them (Options.TokensLater).
func (s *Service) Stats(ctx context.Context) (*Stats, error) {
	made, err := s.pendingCounts(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	rows, err := s.tokenRows(ctx)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	var late []int64 // kept without counts since pendingCounts looked
	for _, r := range rows {
		if r.pending() && made[r.id] == nil {
			late = append(late, r.id)
		}
	}
	if len(late) > 0 {
		more, err := s.pendingCounts(ctx, late)
		if err != nil {
			return nil, fmt.Errorf("stats: %w", err)
		}
		maps.Copy(made, more)
	}
	out := &Stats{ByCommand: []CommandSavings{}}
	groups := map[string]*CommandSavings{}
	for _, r := range rows {
		if m := made[r.id]; m != nil && r.pending() {
			// counted here but not kept: its output could not all be read
			r.raw, r.digest, r.exact = int64(m.RawTokens), int64(m.DigestTokens), m.RawTokensExact
		}
		g := groups[r.family]
		if g == nil {
			g = &CommandSavings{Command: r.family}
			groups[r.family] = g
		}
		g.add(r.raw, r.digest, r.exact)
		out.add(r.raw, r.digest, r.exact)
	}
	out.finish()
	for _, g := range groups {
		g.finish()
		out.ByCommand = append(out.ByCommand, *g)
	}
	slices.SortFunc(out.ByCommand, func(a, b CommandSavings) int {
		if a.SavedTokens != b.SavedTokens {
			return int(b.SavedTokens - a.SavedTokens)
		}
		return strings.Compare(a.Command, b.Command)
	})
	return out, nil
}

// tokenRow is one record's counts as stored.
type tokenRow struct {
	id          int64
	family      string
	raw, digest int64
	exact       bool
}

func (r tokenRow) pending() bool { return r.raw == NotCounted || r.digest == NotCounted }

func (s *Service) tokenRows(ctx context.Context) ([]tokenRow, error) {
	var out []tokenRow
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, kind, argv, label, raw_tokens, digest_tokens, raw_tokens_exact FROM records`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r tokenRow
			var kind, argv, label string
			if err := rows.Scan(&r.id, &kind, &argv, &label, &r.raw, &r.digest, &r.exact); err != nil {
				return err
			}
			r.family = family(kind, argv, label)
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, err
}

// family names the command a record ran by its program and, when the next
// argument is a plain word, its subcommand: "go test", "cargo build",
// "sh -c". Captures are grouped by label.
func family(kind, argvJSON, label string) string {
	if kind == "capture" {
		if label != "" {
			return "capture: " + label
		}
		return "capture"
	}
	var argv []string
	if json.Unmarshal([]byte(argvJSON), &argv) != nil || len(argv) == 0 {
		return "(unknown)"
	}
	name := filepath.Base(argv[0])
	if len(argv) > 1 {
		next := argv[1]
		if next == "-c" || (next != "" && !strings.ContainsAny(next, "-/.=:") && len(next) <= 20) {
			return name + " " + next
		}
	}
	return name
}
