package compress

import (
	"github.com/freshctx/freshctx/internal/rx"
	"strings"
)

// Rust is the compressor for cargo build/test/clippy and rustc.
var Rust = family("rust", rustCmd, rustHead, rustRules)

var (
	rustCmd  = command(`(^|[\s/])(cargo|rustc|cargo-clippy)(\s|$)`, "cargo", "rustc")
	rustHead = rx.MustCompile(`(?m)^(\s+(Compiling|Checking) \S+ v\d|error\[E\d{4}\]|running \d+ tests?$)`)

	rustNoise = match(`^(\s*(Compiling|Checking|Downloading|Downloaded|Updating|Locking|Adding|Blocking|Fresh|Documenting|Packaging|Verifying|Installing|Replacing|Running|Doc-tests)\s|`+
		`test \S+ \.\.\. (ok|ignored)$|running \d+ tests?$|note: Some details are omitted|stack backtrace:$|`+
		`For more information about (this|an) error|note: run with .RUST_BACKTRACE)`,
		"= help: for further information visit", "")
	rustError   = rx.MustCompile(`^(error(\[E\d{4}\])?: |test \S+ \.\.\. FAILED$|thread '.*' panicked at |---- \S+ stdout ----$)`)
	rustWarning = rx.MustCompile(`^warning(\[\w+\])?: `)
	rustSummary = rx.MustCompile(`^(test result: |\s*Finished |error: (could not compile|test failed|aborting due to)|warning: .* generated \d+ warnings?|Some errors have detailed explanations: )`)
	rustArrow   = rx.MustCompile(`^\s*--> \S+:\d+:\d+$`)
	rustSnippet = rx.MustCompile(`^\s*(\d+\s*)?\|(.*)$|^\s*= (note|help): |^\s*\.\.\.$`)
	rustFrame   = rx.MustCompile(`^\s+at (\S+):(\d+):(\d+)$`)
	rustFunc    = rx.MustCompile(`^\s+\d+: (\S.*)$`)
	rustStdFunc = rx.MustCompile(`^(core|std|alloc|test|__rustc)::|^<.*>::|^__|^_start|^main$`)
	rustLint    = rx.MustCompile(`#\[(warn|deny|forbid)\([\w:]+\)\]`)
)

func rustRules(root string) Rules {
	fr := newFrames(root, 3)
	var block string // "error", "warning", "help" or "failures": what the lines below belong to
	return Rules{
		Before: 1,
		Judge: func(line string) Class {
			t := strings.TrimSpace(line)
			switch {
			case t == "":
				block = ""
				return Noise
			case rustNoise.MatchString(line):
				return Noise
			case rustSummary.MatchString(line):
				block = ""
				return SummaryLine
			case rustError.MatchString(line):
				block = "error"
				fr.newTrace()
				return Error
			case rustWarning.MatchString(line):
				block = "warning"
				return Warning
			case strings.HasPrefix(line, "help: "):
				block = "help"
				return Warning // what to do about it
			case block == "warning" && strings.Contains(line, " help: "):
				return Warning // the carets, with the suggestion after them
			case t == "failures:":
				block = "failures"
				return Error
			case rustArrow.MatchString(line), strings.Contains(line, "#[") && rustLint.MatchString(line):
				return Ref // where, and which lint
			}
			if m := rustFrame.FindStringSubmatch(line); m != nil {
				return fr.judge(m[1], m[1]+":"+m[2], false)
			}
			if m := rustFunc.FindStringSubmatch(line); m != nil {
				if rustStdFunc.MatchString(m[1]) {
					return Noise
				}
				return Plain
			}
			switch block {
			case "failures":
				return Error // the names of the failing tests
			case "error":
				if rustSnippet.MatchString(line) {
					return Ref // the code and the carets that say what is wrong
				}
				return Error // the panic message under a panicked line
			case "warning", "help":
				return Noise
			}
			return Auto
		},
	}
}
