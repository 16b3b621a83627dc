package compress

import (
	"github.com/freshctx/freshctx/internal/rx"
	"strings"
)

// Python is the compressor for pytest and unittest, and Python tracebacks.
var Python = Factory{
	Name:  "python",
	Match: matchBy(pyCmd, pyHead),
	New: func(o Options) Compressor {
		if o.Intent == Raw { // every line, in order
			return NewEngine(o.Intent, pythonRules(o.Root))
		}
		return newPyTraces(NewEngine(o.Intent, pythonRules(o.Root)).(*engine))
	},
}

var (
	pyCmd = command(`(^|[\s/])(pytest|py\.test|tox|nox)(\s|$)|python[\d.]*\s+(-\w+\s+)*-m\s+(pytest|unittest)\b`,
		"py.test", "pytest", "tox", "nox", "python")
	pyHead = rx.MustCompile(`(?m)^(=+ test session starts =+$|(FAIL|ERROR): test\w* \(|Traceback \(most recent call last\):$)`)

	// A line of pytest's progress ("tests/x.py ..F. [ 40%]") can start with
	// any byte: it is tried on lines holding ".py " only, so that the
	// anchored expression's first bytes turn most lines away.
	pyNoise = match(`^(platform |rootdir: |plugins: |cachedir: |configfile: |collecting |collected \d+ items?|\s*\.+\s*(\[\s*\d+%\])?$|`+
		`=+ test session starts =+$|(_ )+_?$|-{20,}$|={20,}$)`,
		".py ", `^\S+\.py [.FEsxX]+\s*(\[\s*\d+%\])?$`,
		"... ok", `\.\.\. ok$`, "... skipped", `\.\.\. skipped.*$`).
		// pytest -v's result of one test, `::.* PASSED\b` and the like, on
		// most lines of its output: a plain search costs a fifth of the
		// expression's run.
		or(" PASSED", afterColons(" PASSED")).or(" SKIPPED", afterColons(" SKIPPED")).
		or(" XFAIL", afterColons(" XFAIL")).or(" XPASS", afterColons(" XPASS"))
	pyError = match(`^((FAILED|ERROR) \S|E\s|(FAIL|ERROR): |_{3,} .+ _{3,}$|([A-Za-z_]\w*\.)*\w*(Error|Exception|Exit|Interrupt)\b(:|$)|`+
		`Traceback \(most recent call last\):$|>\s)`,
		" FAILED", `::\S+ FAILED\b`, " ERROR", `::\S+ ERROR\b`, "... FAIL", `\.\.\. FAIL$`, "... ERROR", `\.\.\. ERROR$`)
	pySummary = rx.MustCompile(`^(=+ .*\b(passed|failed|errors?|skipped|no tests ran)\b.* =+$|=+ short test summary info =+$|Ran \d+ tests? in |(FAILED|OK)( \(.*\))?$|\d+ (passed|failed))`)
	pyBlock   = rx.MustCompile(`^_{3,} (.+?) _{3,}$`)
	// pyVerboseResult is pytest -v's per-test line; the short test summary
	// names the failures again.
	pyVerboseResult = rx.MustCompile(`::.* (FAILED|ERROR)\s+\[\s*\d+%\]$`)
	pyFrame         = rx.MustCompile(`^\s+File "([^"]+)", line (\d+)`)
)

func pythonRules(root string) Rules {
	fr := newFrames(root, 4)
	return Rules{
		NoContext: true,
		Block: func(line string) (string, bool) {
			if m := pyBlock.FindStringSubmatch(line); m != nil {
				return m[1], true
			}
			return "", false
		},
		Judge: func(line string) Class {
			switch {
			case pyNoise.MatchString(line):
				return Noise
			case pyVerboseResult.MatchString(line):
				return Plain
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

// isPythonLib reports a frame of the standard library or an installed
// package; "<frozen importlib._bootstrap>" is the interpreter's own,
// "<string>" and "<stdin>" are the user's code.
func isPythonLib(path string) bool {
	return strings.Contains(path, "site-packages") || strings.Contains(path, "dist-packages") ||
		strings.Contains(path, "/lib/python") || strings.HasPrefix(path, "<frozen")
}
