package cli

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestRunAndCaptureLimitTheirMemory(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	limitMemory([]string{"HOME=/x"})
	if got := debug.SetMemoryLimit(-1); got != captureMemory {
		t.Fatalf("memory limit %d, want %d", got, captureMemory)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	limitMemory([]string{"GOMEMLIMIT=1GiB"})
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("GOMEMLIMIT in the environment was overridden: limit %d", got)
	}
}
