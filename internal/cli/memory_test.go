package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// collector reads the collector's settings without changing them.
func collector() (percent int, limit int64) {
	percent = debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

// resetCollector puts Go's defaults back for the next test.
func resetCollector() {
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
}

func commandFor(policy string) *cobra.Command {
	c := &cobra.Command{Use: "x"}
	if policy != "" {
		c.Annotations = map[string]string{collectorKey: policy}
	}
	return c
}

func TestCollectorPolicies(t *testing.T) {
	defer resetCollector()
	for _, tc := range []struct {
		policy  string
		percent int
		limit   int64
	}{
		{collectCapture, -1, captureMemory},
		{collectServer, 100, math.MaxInt64},
		{"", -1, lateHeap},
	} {
		resetCollector()
		setCollector(commandFor(tc.policy), []string{"HOME=/x"})
		if p, l := collector(); p != tc.percent || l != tc.limit {
			t.Errorf("policy %q: GC percent %d, limit %d; want %d, %d", tc.policy, p, l, tc.percent, tc.limit)
		}
		for _, env := range []string{"GOMEMLIMIT=1GiB", "GOGC=50"} {
			resetCollector()
			setCollector(commandFor(tc.policy), []string{env})
			if p, l := collector(); p != 100 || l != math.MaxInt64 {
				t.Errorf("policy %q with %s in the environment: GC percent %d, limit %d; want Go's defaults", tc.policy, env, p, l)
			}
		}
	}
}

// A command that outgrows lateHeap is collected as Go's default paces it
// from its first collection on, so its heap is not held at the limit.
func TestCollectLateRestoresPacingAfterTheFirstCollection(t *testing.T) {
	defer resetCollector()
	collectLate()
	runtime.GC()
	deadline := time.Now().Add(5 * time.Second)
	for {
		p, l := collector()
		if p == 100 && l == math.MaxInt64 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a collection: GC percent %d, limit %d; want Go's defaults", p, l)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}
