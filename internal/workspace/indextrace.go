package workspace

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// A status says itself whether the index's stat data is stale: git's
// trace2 counts the entries whose stat data did not match the file
// (refresh/sum_scan), which it then read and hashed to compare. An entry
// that was scanned and is not among the changes is one a refresh would
// spare every later status. freshctx refreshes the index when a status
// found at least staleEntries of them: the index decides, not a clock, so
// a busy machine, whose statuses are slow for other reasons, triggers no
// refresh. A git that writes no such count (before trace2, or a test's
// runner) is judged by the clock as before (refresh.go).

// staleEntries is how many entries read again for nothing make a refresh
// worth its cost (about one status): fewer cost a status little.
var staleEntries = 100

// traceGrace bounds the wait for the trace once git has exited.
const traceGrace = 100 * time.Millisecond

// traceKey marks a context whose git (ExecGit) writes its trace2 events
// into the buffer it carries. The trace rides on the context, not on the
// Runner, so that a test's Runner sees every git, the traced one too, and
// one that answers for git itself simply leaves no trace.
type traceKey struct{}

// withTrace is ctx with a buffer for the trace of the git run with it.
func withTrace(ctx context.Context) (context.Context, *bytes.Buffer) {
	var buf bytes.Buffer
	return context.WithValue(ctx, traceKey{}, &buf), &buf
}

// traceSink is the buffer ctx asks the trace to be written to, if any.
func traceSink(ctx context.Context) *bytes.Buffer {
	b, _ := ctx.Value(traceKey{}).(*bytes.Buffer)
	return b
}

// traced runs cmd with git's trace2 events written to a pipe of their own
// (file descriptor 3) and read into sink.
func traced(cmd *exec.Cmd, sink *bytes.Buffer) ([]byte, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("a pipe for git's trace: %w", err)
	}
	cmd.Env = append(cmd.Env, "GIT_TRACE2_EVENT=3")
	cmd.ExtraFiles = []*os.File{w}
	var wg sync.WaitGroup
	wg.Go(func() { io.Copy(sink, r) })
	out, err := cmd.Output()
	w.Close() // git's copy closed at its exit; this one ends the read
	// A process git started and left running (an fsmonitor daemon) may
	// hold the pipe open: what git wrote is in the pipe by its exit.
	r.SetReadDeadline(time.Now().Add(traceGrace))
	wg.Wait()
	r.Close()
	return out, err
}

// sumScanRe is compiled on first use: every command links this package,
// few read a trace.
var sumScanRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"key":"refresh/sum_scan","value":"(\d+)"`)
})

// scanned is how many index entries git read again because their stat
// data did not match, summed over the trace; false when git did not say.
func scanned(trace []byte) (int, bool) {
	ms := sumScanRe().FindAllSubmatch(trace, -1)
	if len(ms) == 0 {
		return 0, false
	}
	n := 0
	for _, m := range ms {
		v, _ := strconv.Atoi(string(m[1]))
		n += v
	}
	return n, true
}

// changedEntries counts the tracked entries a porcelain v2 -z status
// lists (changed, renamed, unmerged): at most these of the scanned ones
// were read for a real change.
func changedEntries(status []byte) int {
	n := 0
	for _, f := range bytes.Split(status, []byte{0}) {
		if len(f) > 2 && f[1] == ' ' && (f[0] == '1' || f[0] == '2' || f[0] == 'u') {
			n++
		}
	}
	return n
}

// staleIndex says, from a traced status, whether the index is stale
// enough to refresh; known is false when the trace does not tell.
func staleIndex(trace, status []byte) (stale, known bool) {
	n, ok := scanned(trace)
	if !ok {
		return false, false
	}
	return n-changedEntries(status) >= staleEntries, true
}
