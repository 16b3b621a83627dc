package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// collectorKey is the annotation that picks a command's collector policy;
// a command without it gets collectLate.
const collectorKey = "collector"

const (
	// collectCapture: run and capture, under captureMemory (limitMemory).
	collectCapture = "capture"
	// collectServer: a process that stays up paces its collector as Go
	// does by default.
	collectServer = "server"
)

// captureMemory is the soft memory limit of run and capture: however much
// output comes, the garbage collector works to keep the process's own
// memory near it (the ruleset, the tokenizer, the compressor's state and
// the buffers in flight are about 20 MB of it; the binary's code and
// constant data add about 23 MB of resident pages besides, and the store's
// work at the end a few more). At 40 MiB a 100 MB capture peaked at 61-65
// MB, at 36 MiB at 58-61 MB and 5-10% slower. GOMEMLIMIT in the
// environment overrides it.
const captureMemory = 36 << 20

// lateHeap is how large the heap of any other command grows before its
// first collection; past it the collector paces itself as Go's default
// does. Most commands end well below it and collect nothing.
const lateHeap = 64 << 20

// setCollector applies cmd's collector policy. GOGC or GOMEMLIMIT in the
// environment leaves the collector as they say.
func setCollector(cmd *cobra.Command, env []string) {
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOMEMLIMIT=") || strings.HasPrefix(kv, "GOGC=") {
			return
		}
	}
	switch cmd.Annotations[collectorKey] {
	case collectCapture:
		limitMemory()
	case collectServer:
	default:
		collectLate()
	}
}

// limitMemory sets run's and capture's soft memory limit and lets the
// collector run only as the heap nears it: most runs never get there and
// collect nothing, where the default pacing collected several times while
// the tokenizer built its 200,000-entry vocabulary (8 runs at a time: 15%
// more runs a second). A capture whose live heap is ~20 MB collects as
// often under the limit either way.
func limitMemory() {
	debug.SetMemoryLimit(captureMemory)
	debug.SetGCPercent(-1)
}

// collectLate lets the heap grow to lateHeap before the first collection
// and restores Go's default pacing once that collection has run. A
// 2,000-slice artifact get spent 12% of its time collecting garbage of a
// process about to exit; a registry bootstrap of 100,000 files, whose
// live heap passes lateHeap, peaks as it did.
func collectLate() {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(lateHeap)
	// A pointer keeps the sentinel out of the tiny allocator, whose
	// objects may never be reported collected.
	sentinel := &struct{ p *int }{}
	runtime.AddCleanup(sentinel, func(struct{}) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}, struct{}{})
}
