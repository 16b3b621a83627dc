package compress

import (
	"github.com/freshctx/freshctx/internal/rx"
	"strings"
)

// C is the compressor for gcc, clang, make, cmake and ninja.
var C = family("c", cCmd, cHead, func(string) Rules { return cRules() })

var (
	cCmd  = command(`(^|[\s/])(gcc|g\+\+|cc|c\+\+|clang|clang\+\+|make|gmake|cmake|ninja)(\s|$)`, "cc", "++", "clang", "make", "ninja")
	cHead = rx.MustCompile(`(?m)^(\S+\.(c|cc|cpp|cxx|h|hpp):\d+:\d+: (error|warning): |make(\[\d+\])?: \*\*\*)`)

	cNoise = rx.MustCompile(`^(\s*(ccache\s+)?(gcc|g\+\+|cc|c\+\+|clang|clang\+\+|ld|ar|ranlib|/\S+/(gcc|cc|clang))\s.*\s-[coO]|` +
		`make(\[\d+\])?: (Entering|Leaving) directory|make(\[\d+\])?: Nothing to be done|\[\s*\d+%\] (Building|Linking|Built)|-- )`)
	cError   = match(`^(make(\[\d+\])?: \*\*\*|collect2: |\S*ld(\.\w+)?: )`, ": error: ", "", ": fatal error: ", "", "undefined reference to", "")
	cWarning = match("", ": warning: ", "")
	cSummary = rx.MustCompile(`^(\d+ (errors?|warnings?)( and \d+ warnings?)? generated\.$|make(\[\d+\])?: Target .* not remade|ninja: build stopped)`)
	cNote    = match("", ": note: ", "")
	cSnippet = rx.MustCompile(`^\s*\d*\s*\|.*$|^\s*[\^~]+[\^~\s]*$|^\s{2,}\S`)
)

func cRules() Rules {
	block := "" // "error" or "warning": the diagnostic the snippet lines below belong to
	return Rules{
		Before: 1,
		Judge: func(line string) Class {
			switch {
			case cNoise.MatchString(line):
				return Noise
			case cSummary.MatchString(line):
				return SummaryLine
			case cError.MatchString(line):
				block = "error"
				return Error
			case cWarning.MatchString(line):
				block = "warning"
				return Warning
			case cNote.MatchString(line):
				return Ref
			}
			if block != "" && cSnippet.MatchString(line) && !strings.HasSuffix(line, ":") {
				if block == "error" {
					return Ref // the code and the caret under what is wrong
				}
				return Noise
			}
			block = ""
			return Auto
		},
	}
}
