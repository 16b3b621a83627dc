package compress

import (
	"regexp"
	"strings"
)

// Python is the compressor for pytest and unittest, and Python tracebacks.
var Python = family("python", pyCmd, pyHead, pythonRules)

var (
	pyCmd  = regexp.MustCompile(`(^|[\s/])(pytest|py\.test|tox|nox)(\s|$)|python[\d.]*\s+(-\w+\s+)*-m\s+(pytest|unittest)\b`)
	pyHead = regexp.MustCompile(`(?m)^(=+ test session starts =+$|(FAIL|ERROR): test\w* \(|Traceback \(most recent call last\):$)`)

	pyNoise = match(`^(platform |rootdir: |plugins: |cachedir: |configfile: |collecting |collected \d+ items?|\s*\.+\s*(\[\s*\d+%\])?$|`+
		`=+ test session starts =+$|(_ )+_?$|-{20,}$|={20,}$)`,
		" PASSED", `::\S+ PASSED\b`, " SKIPPED", `::\S+ SKIPPED\b`, " XFAIL", `::\S+ XFAIL\b`,
		"... ok", `\.\.\. ok$`, "... skipped", `\.\.\. skipped.*$`)
	pyError = match(`^((FAILED|ERROR) \S|E\s|(FAIL|ERROR): |_{3,} .+ _{3,}$|\w+(Error|Exception|Exit|Interrupt)\b(:|$)|`+
		`Traceback \(most recent call last\):$|>\s)`,
		" FAILED", `::\S+ FAILED\b`, " ERROR", `::\S+ ERROR\b`, "... FAIL", `\.\.\. FAIL$`, "... ERROR", `\.\.\. ERROR$`)
	pySummary = regexp.MustCompile(`^(=+ .*\b(passed|failed|errors?|skipped|no tests ran)\b.* =+$|=+ short test summary info =+$|Ran \d+ tests? in |(FAILED|OK)( \(.*\))?$|\d+ (passed|failed))`)
	pyFrame   = regexp.MustCompile(`^\s+File "([^"]+)", line (\d+)`)
)

func pythonRules(root string) Rules {
	fr := newFrames(root, 4)
	return Rules{
		Judge: func(line string) Class {
			switch {
			case pyNoise.MatchString(line):
				return Noise
			case pySummary.MatchString(line):
				return SummaryLine
			case strings.HasPrefix(line, "Traceback "):
				fr.newTrace()
				return Error
			case pyError.MatchString(line):
				return Error
			}
			if m := pyFrame.FindStringSubmatch(line); m != nil {
				return fr.judge(m[1], m[1]+":"+m[2], isPythonLib(m[1]))
			}
			return Auto
		},
	}
}

func isPythonLib(path string) bool {
	return strings.Contains(path, "site-packages") || strings.Contains(path, "dist-packages") ||
		strings.Contains(path, "/lib/python") || strings.HasPrefix(path, "<")
}
