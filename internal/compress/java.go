package compress

import (
	"github.com/freshctx/freshctx/internal/rx"
	"strings"
)

// Java is the compressor for javac, maven (and its surefire reports) and
// Java stack traces.
var Java = family("java", javaCmd, javaHead, javaRules)

var (
	javaCmd  = command(`(^|[\s/])(javac|java|mvn|mvnw|gradle|gradlew)(\s|$)`, "java", "mvn", "gradle")
	javaHead = rx.MustCompile(`(?m)^(\[INFO\] Scanning for projects|\S+\.java:\d+: error: |Exception in thread ")`)

	javaNoise = rx.MustCompile(`^\[INFO\]\s*(Download(ing|ed) |Scanning |Building |--- |-{10,}|skip non existing|Changes detected|` +
		`Compiling \d+ source|Nothing to compile|Using |Copying |Installing |T E S T S|Results:|Running \S+$|` +
		`Tests run: \d+, Failures: 0, Errors: 0|Finished at:|Total time:|$)|^\[ERROR\]\s*$|^\[ERROR\] (To see the full stack trace|` +
		`Re-run Maven|For more information about the errors|\[Help \d+\]|-> \[Help \d+\]|Please refer to)|^Download(ing|ed) from |` +
		`^Progress \(\d+\)|^\s+\.\.\. \d+ more$`)
	javaError = match(`^(\[ERROR\] |([\w$]+\.)+[\w$]*(Exception|Error)\b(: |$)|Exception in thread |Caused by: )`,
		": error: ", "", "<<< FAILURE!", "", "<<< ERROR!", "")
	javaWarning = match(`^\[WARNING\] `, ": warning: ", "")
	javaSummary = match(`^(\[(INFO|ERROR|WARNING)\] Tests run: \d+, Failures: |\d+ (errors?|warnings?)$)`, "BUILD SUCCESS", "", "BUILD FAILURE", "")
	javaFrame   = rx.MustCompile(`^\s+at ([\w$.<>/]+)\(([\w$]+\.(?:java|kt|scala|groovy)):(\d+)\)$`)
	javaForeign = rx.MustCompile(`^(java|javax|jdk|sun|com\.sun|org\.junit|junit|org\.apache\.maven|org\.gradle|kotlin|scala|org\.testng)\.`)
	javacError  = match("", ".java:", `\.java:\d+: (error|warning): `)
)

func javaRules(root string) Rules {
	fr := newFrames(root, 3)
	block := 0 // lines of a javac diagnostic still to keep (code, caret, symbol, location)
	return Rules{
		Before: 1,
		Judge: func(line string) Class {
			if strings.HasPrefix(strings.TrimSpace(line), "at ") {
				if m := javaFrame.FindStringSubmatch(line); m != nil {
					return fr.judge(m[2], m[1], javaForeign.MatchString(m[1]))
				}
			}
			switch {
			case javaNoise.MatchString(line):
				return Noise
			case javaSummary.MatchString(line):
				return SummaryLine
			case javacError.MatchString(line):
				block = 4
				if strings.Contains(line, ": warning: ") {
					return Warning
				}
				return Error
			case javaError.MatchString(line):
				fr.newTrace()
				return Error
			case javaWarning.MatchString(line):
				return Warning
			}
			if block > 0 && strings.TrimSpace(line) != "" {
				block--
				return Ref
			}
			block = 0
			return Auto
		},
	}
}
