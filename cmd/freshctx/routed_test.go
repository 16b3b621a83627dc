package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/tokens"
)

// TestRoutedResultIsNeverMuchMoreThanThePlainOutput: what a routed command
// gives the model is never more than its plain output and a short footer,
// and output that is already short passes through whole — real go build
// and go test runs: a build that prints nothing, a passing test, and a -v
// run of one test whose t.Logf line the user asked for.
func TestRoutedResultIsNeverMuchMoreThanThePlainOutput(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go")
	}
	bin := testbin.Build(t)
	r := testgit.New(t)
	for name, text := range map[string]string{
		"go.mod":  "module example.com/calc\n\ngo 1.22\n",
		"calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n\n" +
			"func TestDebugValue(t *testing.T) {\n\tt.Logf(\"the value is %d\", Add(20, 22))\n}\n",
	} {
		r.Write(name, text)
	}
	r.Commit("init")
	gocache, _ := exec.Command("go", "env", "GOCACHE").Output()
	env := append(os.Environ(), "GOCACHE="+strings.TrimSpace(string(gocache)), "GOFLAGS=-count=1")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env = r.Dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", args, err, out)
		}
		return string(out)
	}
	for _, argv := range [][]string{
		{"go", "build", "./..."},
		{"go", "test", "./..."},
		{"go", "test", "-v", "-run", "TestDebugValue", "./..."},
	} {
		plain := run(argv...)
		routed := run(append([]string{bin, "run", "--"}, argv...)...)
		// The duration in go test's lines differs from run to run: compare
		// the text without it.
		if strip(routed) != strip(plain)+"freshctx: record "+strings.TrimSpace(lastWord(routed))+"\n" {
			t.Errorf("%s: plain output\n%s\nrouted\n%s", argv, plain, routed)
		}
		if n, m := tokens.Count(routed), tokens.Count(plain); n > m+10 {
			t.Errorf("%s: %d tokens routed, %d plain", argv, n, m)
		}
	}
	if !strings.Contains(run(bin, "show", "3"), "the value is 42") {
		t.Error("the -v run's record lost the t.Logf line")
	}
}

// strip takes go test's durations out of its lines.
func strip(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if i := strings.LastIndex(l, "\t"); i > 0 && strings.HasSuffix(strings.TrimSpace(l), "s") {
			l = l[:i] + "\n"
		}
		if i := strings.Index(l, " ("); i > 0 && strings.HasSuffix(strings.TrimSpace(l), "s)") {
			l = l[:i] + "\n"
		}
		b.WriteString(l)
	}
	return b.String()
}

func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}
