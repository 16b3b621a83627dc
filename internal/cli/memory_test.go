package cli

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestRunAndCaptureLimitTheirMemory(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	limitMemory([]string{"HOME=/x"})
	if got := debug.SetMemoryLimit(-1); got != captureMemory {
		t.Fatalf("memory limit %d, want %d", got, captureMemory)
	}
	if got := debug.SetGCPercent(100); got != -1 {
		t.Fatalf("GC percent %d, want -1: collect only near the limit", got)
	}
	for _, env := range []string{"GOMEMLIMIT=1GiB", "GOGC=50"} {
		debug.SetMemoryLimit(math.MaxInt64)
		limitMemory([]string{env})
		if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
			t.Fatalf("%s in the environment was overridden: limit %d", env, got)
		}
		if got := debug.SetGCPercent(100); got != 100 {
			t.Fatalf("%s in the environment was overridden: GC percent %d", env, got)
		}
	}
}
