package compress

import (
	"github.com/freshctx/freshctx/internal/rx"
	"strings"
)

// JS is the compressor for tsc, eslint, jest, vitest and node --test.
var JS = family("js", jsCmd, jsHead, jsRules)

var (
	jsCmd = command(`(^|[\s/])(tsc|eslint|jest|vitest|mocha|ava|npx|pnpm|yarn|npm (run |)test)(\s|$)|node\s.*--test\b`,
		"tsc", "eslint", "jest", "vitest", "mocha", "ava", "npx", "pnpm", "yarn", "npm", "--test")
	jsHead = rx.MustCompile(`(?m)^(TAP version \d+|(PASS|FAIL) \S+\.(test|spec)\.[cm]?[jt]sx?| RUN  v\d|\S+\(\d+,\d+\): error TS\d+)`)

	// jsNoisePrefix and jsNoise are tried on the line without its indent.
	jsNoisePrefix = prefixes("✓ ", "√ ", "PASS ", "# Subtest: ", "duration_ms: ", "failureType: ", "TAP version",
		"Start at ", "Duration ", "⎯", "npm notice ", "stack: |-", "potentially fixable with", "Watch Usage")
	jsNoise = rx.MustCompile(`^(ok \d+ - |---$|\.\.\.$|RUN\s+v\d|\d+\.\.\d+$|# (suites|cancelled|skipped|todo|duration_ms) |> \S+@\S+ )`)
	// An exception's name can start with any letter: "TypeError: " is
	// tried on lines holding "Error: " only, so that the anchored
	// expression's first bytes turn most lines away.
	jsError = match(`^(\s*(✕|×) |\s*● |\s*FAIL |\s*not ok \d+ - |\s+\d+:\d+\s+error\s|\s*error: )`,
		"Error: ", `^\s*\w*Error: `, "error TS", `error TS\d+`)
	jsWarning = rx.MustCompile(`^\s+\d+:\d+\s+warning\s`)
	jsSummary = match(`^(Tests?:\s|Test Suites:|Snapshots:|Time:\s|\s*Test Files\s|\s*Tests\s+\d|`+
		`# (tests|pass|fail) \d+|[✖✔] \d+ problems?|Found \d+ errors?|\s*ℹ (tests|pass|fail) \d+)`,
		"Ran all test suites", "")
	jsFrame = rx.MustCompile(`^\s*(?:at |async )?(?:.*\()?(?:file://)?((?:/|\.{0,2}/|[\w@-]+/)?[^\s():]+\.[cm]?[jt]sx?|node:[\w/]+|[^\s():]+):(\d+):(\d+)\)?$`)
	// jsBlock heads one failure's report: vitest's "FAIL  file > test",
	// jest's "● suite › test".
	jsBlock    = rx.MustCompile(`^\s*(?:FAIL\s+(\S+ > .+)|● (.+ › .+))$`)
	jsCodeLine = rx.MustCompile(`^\s*>?\s*\d+\s*\|.*$|^\s*\|\s*\^`)
)

// maxBlock bounds the lines kept under one failure.
const maxBlock = 16

func jsRules(root string) Rules {
	fr := newFrames(root, 3)
	inFailure, blockLines := false, 0
	return Rules{
		Before: 1,
		Block: func(line string) (string, bool) {
			// What jsBlock's \s* leaves must start "FAIL" or "● ": most
			// lines are turned away here, not by a run of the expression.
			t := rx.TrimLeftSpace(line)
			if !strings.HasPrefix(t, "FAIL") && !strings.HasPrefix(t, "● ") {
				return "", false
			}
			if m := jsBlock.FindStringSubmatch(line); m != nil {
				return m[1] + m[2], true
			}
			return "", false
		},
		Judge: func(line string) Class {
			t := strings.TrimSpace(line)
			switch {
			case jsNoisePrefix.of(t), jsNoise.MatchString(t):
				return Noise
			case jsSummary.MatchString(line):
				inFailure = false
				return SummaryLine
			case jsError.MatchString(line):
				inFailure, blockLines = true, 0
				fr.newTrace()
				return Error
			case jsWarning.MatchString(line), strings.HasPrefix(t, "npm warn "), strings.HasPrefix(t, "WARN "):
				return Warning
			}
			if strings.HasPrefix(t, "at ") || strings.HasPrefix(t, "❯") || strings.HasSuffix(t, ")") {
				if m := jsFrame.FindStringSubmatch(line); m != nil {
					return fr.judge(m[1], m[1]+":"+m[2], false)
				}
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
