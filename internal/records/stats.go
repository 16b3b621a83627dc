package records

import (
	"context"
	"encoding/json"
	"fmt"
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

// Stats sums the savings of every record.
func (s *Service) Stats(ctx context.Context) (*Stats, error) {
	out := &Stats{ByCommand: []CommandSavings{}}
	groups := map[string]*CommandSavings{}
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT kind, argv, label, raw_tokens, digest_tokens, raw_tokens_exact FROM records`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var kind, argv, label string
			var raw, digest int64
			var exact bool
			if err := rows.Scan(&kind, &argv, &label, &raw, &digest, &exact); err != nil {
				return err
			}
			fam := family(kind, argv, label)
			g := groups[fam]
			if g == nil {
				g = &CommandSavings{Command: fam}
				groups[fam] = g
			}
			g.add(raw, digest, exact)
			out.add(raw, digest, exact)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
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
