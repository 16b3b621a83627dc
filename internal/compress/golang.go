package compress

import (
	"github.com/freshctx/freshctx/internal/rx"
	"strings"
)

// Go is the compressor for go test (plain, -v, -json, -race), go build and
// go vet.
var Go = Factory{
	Name:  "go",
	Match: matchBy(goCmd, goHead),
	New: func(o Options) Compressor {
		r := goRules(o.Root)
		if o.Intent == Raw { // every line, in order
			r.Transform = goJSON
			return NewEngine(o.Intent, r)
		}
		return newGoTests(NewEngine(o.Intent, r).(*engine), goJSON)
	},
}

var (
	goCmd  = command(`(^|[\s/])go (test|build|vet|run|install)\b`, "go ")
	goHead = rx.MustCompile(`(?m)^(=== RUN |--- FAIL: |ok  \t|\{"Time":"[^"]+","Action":)`)

	goNoise   = rx.MustCompile(`^(=== (RUN|PAUSE|CONT|NAME)\s|\s*--- (PASS|SKIP): |PASS$|\?\s+\S+\s+\[no test files\]|go: (downloading|finding|extracting) |={10,}$)`)
	goFail    = match(`^(\s*--- FAIL: |panic: |fatal error: |WARNING: DATA RACE|\[signal )`, "race detected during execution", "")
	goSummary = rx.MustCompile(`^((ok|FAIL)\s+\S+\s+(\d|\(cached\)|\[)|FAIL$|coverage: |\s*(ok|FAIL)\s+\S+\s+[\d.]+s)`)
	goRace    = rx.MustCompile(`^(Previous )?(read|write|Read|Write) at 0x[0-9a-f]+ by (goroutine|main goroutine)`)
	goFrame   = rx.MustCompile(`^\s+(/?\S+\.(?:go|s)):(\d+)(?: \+0x[0-9a-f]+)?$`)
	goRoutine = rx.MustCompile(`^goroutine \d+ \[|^Goroutine \d+ \(\w+\) created at:`)
	// goStdFunc is a frame's function line in the standard library: its
	// import path's first element has no dot (main excepted).
	goStdFunc = rx.MustCompile(`^\s*(?:created by )?([a-z]\w*)(?:/[\w-]+)*\.[^/\s]*\(.*\)(?: in goroutine \d+)?$`)
)

// goEvent is one line of go test -json.
type goEvent struct {
	Action string
	Test   string
	Output string
}

func goRules(root string) Rules {
	fr := newFrames(root, 4)
	fr.traceSeen = true
	traces := 0
	return Rules{
		Before: 1,
		Judge: func(line string) Class {
			switch {
			case goNoise.MatchString(line):
				return Noise
			case goFail.MatchString(line):
				return Error
			case goSummary.MatchString(line):
				return SummaryLine
			case goRace.MatchString(line):
				fr.newTrace()
				return Ref
			case goRoutine.MatchString(line):
				fr.newTrace()
				traces++
				if traces > 1 && !strings.HasPrefix(line, "Goroutine") {
					return Noise // only the panicking goroutine's trace matters
				}
				return Plain
			}
			if m := goFrame.FindStringSubmatch(line); m != nil {
				return fr.judge(m[1], m[1]+":"+m[2], isGoRuntime(m[1]))
			}
			if m := goStdFunc.FindStringSubmatch(line); m != nil && m[1] != "main" {
				return Noise
			}
			return Auto
		},
	}
}

func isGoRuntime(path string) bool {
	return strings.Contains(path, "/go/src/") || strings.Contains(path, "/pkg/mod/") ||
		strings.HasPrefix(path, "runtime/") || strings.HasPrefix(path, "testing/")
}
