package compress

import (
	"regexp"
	"strings"
)

// JS is the compressor for tsc, eslint, jest, vitest and node --test.
var JS = Factory{
	Name: "js",
	Match: func(argv []string, head []byte) bool {
		return cmdMatches(argv, jsCmd) || jsHead.Match(head)
	},
	New: func(o Options) Compressor { return NewEngine(o.Intent, jsRules(o.Root)) },
}

var (
	jsCmd  = regexp.MustCompile(`(^|[\s/])(tsc|eslint|jest|vitest|mocha|ava|npx|pnpm|yarn|npm (run |)test)(\s|$)|node\s.*--test\b`)
	jsHead = regexp.MustCompile(`(?m)^(TAP version \d+|(PASS|FAIL) \S+\.(test|spec)\.[cm]?[jt]sx?| RUN  v\d|\S+\(\d+,\d+\): error TS\d+)`)

	jsNoise = regexp.MustCompile(`^\s*(✓|√) |^PASS |^\s*ok \d+ - |^\s*# Subtest: |^\s+duration_ms: |^\s+failureType: |^\s+---$|^\s+\.\.\.$|` +
		`^TAP version|^\s*RUN\s+v\d|^\s+Start at |^\s+Duration |^\s*\d+\.\.\d+$|^# (suites|cancelled|skipped|todo|duration_ms) |` +
		`^\s*⎯+(\[\d+/\d+\]⎯*)?$|^npm (warn|notice) |^> \S+@\S+ |Watch Usage|^\s+stack: \|-$|^\s+potentially fixable with`)
	jsError = regexp.MustCompile(`^\s*(✕|×) |^\s*● |^\s*FAIL |^\s*not ok \d+ - |error TS\d+|^\s+\d+:\d+\s+error\s|` +
		`^\s*(\w+Error|Error): |^\s*error: `)
	jsWarning = regexp.MustCompile(`^\s+\d+:\d+\s+warning\s`)
	jsSummary = regexp.MustCompile(`^Tests?:\s|^Test Suites:|^Snapshots:|^Time:\s|^\s*Test Files\s|^\s*Tests\s+\d|` +
		`^# (tests|pass|fail) \d+|^[✖✔] \d+ problems?|^Found \d+ errors?|Ran all test suites|^\s*ℹ (tests|pass|fail) \d+`)
	jsFrame    = regexp.MustCompile(`^\s*(?:at |async )?(?:.*\()?(?:file://)?((?:/|\.{0,2}/|[\w@-]+/)?[^\s():]+\.[cm]?[jt]sx?|node:[\w/]+|[^\s():]+):(\d+):(\d+)\)?$`)
	jsCodeLine = regexp.MustCompile(`^\s*>?\s*\d+\s*\|.*$|^\s*\|\s*\^`)
)

// maxBlock bounds the lines kept under one failure.
const maxBlock = 16

func jsRules(root string) Rules {
	fr := newFrames(root, 3)
	inFailure, blockLines := false, 0
	return Rules{
		Before: 1,
		Judge: func(line string) Class {
			t := strings.TrimSpace(line)
			switch {
			case jsNoise.MatchString(line):
				return Noise
			case jsSummary.MatchString(line):
				inFailure = false
				return SummaryLine
			case jsError.MatchString(line):
				inFailure, blockLines = true, 0
				fr.newTrace()
				return Error
			case jsWarning.MatchString(line):
				return Warning
			}
			if m := jsFrame.FindStringSubmatch(line); m != nil && (strings.HasPrefix(t, "at ") || strings.Contains(t, "(") || strings.HasPrefix(t, "❯")) {
				return fr.judge(m[1], m[1]+":"+m[2], false)
			}
			if !inFailure || t == "" {
				return Auto
			}
			if blockLines++; blockLines > maxBlock {
				return Noise
			}
			if jsCodeLine.MatchString(line) {
				return Ref
			}
			return Ref // expected/received and the failure's message
		},
	}
}
