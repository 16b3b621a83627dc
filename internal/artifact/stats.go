package artifact

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/freshctx/freshctx/internal/store"
)

// Latency summarises regeneration latencies in milliseconds.
type Latency struct {
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	Count int     `json:"count"`
	// Sum is the total, for the Prometheus summary.
	Sum float64 `json:"sum"`
}

// Stats are lookup outcomes and regeneration latency: the time from a miss
// (stale or cold) on a key to the next put of it.
type Stats struct {
	Hits          int     `json:"hits"`
	StaleMisses   int     `json:"stale_misses"`
	ColdMisses    int     `json:"cold_misses"`
	HitRate       float64 `json:"hit_rate"`
	StaleMissRate float64 `json:"stale_miss_rate"`
	ColdMissRate  float64 `json:"cold_miss_rate"`
	RegenLatency  Latency `json:"regen_latency_ms"`
	// Since is the start of the window, absent for all time.
	Since *time.Time `json:"since,omitempty"`
}

// Stats counts the events since the given duration ago (0: all time).
func (s *Service) Stats(ctx context.Context, since time.Duration) (*Stats, error) {
	out := &Stats{}
	from := int64(math.MinInt64)
	if since > 0 {
		t := s.now().Add(-since)
		out.Since, from = &t, t.UnixNano()
	}
	var latencies []float64
	err := s.Store.View(ctx, func(tx *store.Tx) error {
		// Events before the window still open the misses a put in it closes.
		rows, err := tx.QueryContext(ctx, `SELECT at, kind, repo, type, key FROM artifact_events ORDER BY repo, type, key, at, id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		var lastKey string
		var missAt int64 // first miss since the last put, 0 when none
		for rows.Next() {
			var at int64
			var kind, repo, typ, key string
			if err := rows.Scan(&at, &kind, &repo, &typ, &key); err != nil {
				return err
			}
			if k := repo + "\x00" + typ + "\x00" + key; k != lastKey {
				lastKey, missAt = k, 0
			}
			switch kind {
			case "put":
				if missAt != 0 && at >= from {
					latencies = append(latencies, float64(at-missAt)/1e6)
				}
				missAt = 0
			case Stale, Cold:
				if missAt == 0 {
					missAt = at
				}
			}
			if at < from {
				continue
			}
			switch kind {
			case Hit:
				out.Hits++
			case Stale:
				out.StaleMisses++
			case Cold:
				out.ColdMisses++
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("artifact stats: %w", err)
	}
	if total := out.Hits + out.StaleMisses + out.ColdMisses; total > 0 {
		out.HitRate = ratio(out.Hits, total)
		out.StaleMissRate = ratio(out.StaleMisses, total)
		out.ColdMissRate = ratio(out.ColdMisses, total)
	}
	out.RegenLatency = summarize(latencies)
	return out, nil
}

func ratio(n, total int) float64 { return math.Round(1e4*float64(n)/float64(total)) / 1e4 }

// summarize takes nearest-rank percentiles.
func summarize(ms []float64) Latency {
	l := Latency{Count: len(ms)}
	if len(ms) == 0 {
		return l
	}
	slices.Sort(ms)
	rank := func(p float64) float64 { return ms[int(math.Ceil(p*float64(len(ms))))-1] }
	l.P50, l.P95 = rank(0.50), rank(0.95)
	for _, v := range ms {
		l.Sum += v
	}
	return l
}

// WritePrometheus prints the stats in the Prometheus text exposition
// format (version 0.0.4), to be scraped or pushed as is.
func (st *Stats) WritePrometheus(w io.Writer) error {
	_, err := fmt.Fprintf(w, `# HELP freshctx_artifact_lookups_total Artifact lookups by outcome.
# TYPE freshctx_artifact_lookups_total counter
freshctx_artifact_lookups_total{outcome="hit"} %d
freshctx_artifact_lookups_total{outcome="stale"} %d
freshctx_artifact_lookups_total{outcome="cold"} %d
# HELP freshctx_artifact_hit_ratio Share of lookups served fresh.
# TYPE freshctx_artifact_hit_ratio gauge
freshctx_artifact_hit_ratio %g
# HELP freshctx_artifact_stale_miss_ratio Share of lookups that found a stale artifact.
# TYPE freshctx_artifact_stale_miss_ratio gauge
freshctx_artifact_stale_miss_ratio %g
# HELP freshctx_artifact_cold_miss_ratio Share of lookups that found no artifact.
# TYPE freshctx_artifact_cold_miss_ratio gauge
freshctx_artifact_cold_miss_ratio %g
# HELP freshctx_artifact_regen_latency_seconds Time from a miss on a key to the next put of it.
# TYPE freshctx_artifact_regen_latency_seconds summary
freshctx_artifact_regen_latency_seconds{quantile="0.5"} %g
freshctx_artifact_regen_latency_seconds{quantile="0.95"} %g
freshctx_artifact_regen_latency_seconds_sum %g
freshctx_artifact_regen_latency_seconds_count %d
`, st.Hits, st.StaleMisses, st.ColdMisses, st.HitRate, st.StaleMissRate, st.ColdMissRate,
		st.RegenLatency.P50/1000, st.RegenLatency.P95/1000, st.RegenLatency.Sum/1000, st.RegenLatency.Count)
	return err
}
