package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testgit"
)

// consoleBlocks are the README's ```console blocks: each `$ ` line a
// command, the lines after it what it printed (stdout and stderr as a
// terminal shows them).
func consoleBlocks(text string) [][]string {
	var blocks [][]string
	var cur []string
	in := false
	for _, l := range strings.Split(text, "\n") {
		switch {
		case !in && strings.TrimSpace(l) == "```console":
			in, cur = true, nil
		case in && strings.TrimSpace(l) == "```":
			in = false
			blocks = append(blocks, cur)
		case in:
			cur = append(cur, l)
		}
	}
	return blocks
}

// varying are the parts of an output that differ from run to run: how
// long something took or how long ago, and commit and session ids.
var varying = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b\d+(\.\d+)? ?(ms|s)\b`), "<time>"},
	{regexp.MustCompile(`\b[0-9a-f]{12,40}\b`), "<commit>"},
}

func steady(s string) string {
	for _, v := range varying {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return strings.TrimRight(s, "\n")
}

// TestReadmeExamples runs the README's console examples, in order, in a
// repository holding the package they speak of, and holds each output to
// what the README shows, times and ids aside.
func TestReadmeExamples(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := consoleBlocks(string(data))
	if len(blocks) < 4 {
		t.Fatalf("%d console blocks in the README, want the tour's 4", len(blocks))
	}
	bin := testbin.Build(t)
	r := testgit.New(t)
	r.Write("go.mod", "module example.com/calc\n\ngo 1.26\n")
	r.Write("calc.go", "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int { return a - b }\n")
	r.Write("calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"+
		"\tif got := Add(2, 2); got != 4 {\n\t\tt.Errorf(\"Add(2, 2) = %d, want 4\", got)\n\t}\n}\n")
	r.Commit("init")
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+t.TempDir(), "GOCACHE="+goCache(), "FRESHCTX_SESSION=")
	for _, block := range blocks {
		for i := 0; i < len(block); {
			line, ok := strings.CutPrefix(block[i], "$ ")
			if !ok {
				t.Fatalf("a console block's output with no command before it: %q", block[i])
			}
			i++
			var want []string
			for ; i < len(block) && !strings.HasPrefix(block[i], "$ "); i++ {
				want = append(want, block[i])
			}
			cmd := exec.Command("sh", "-c", line)
			cmd.Dir, cmd.Env = r.Dir, env
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			_ = cmd.Run() // the exit status is the example's to show (freshctx run's is the test's)
			if got, w := steady(out.String()), steady(strings.Join(want, "\n")); got != w {
				t.Errorf("$ %s\nprinted:\n%s\nthe README shows:\n%s", line, out.String(), strings.Join(want, "\n"))
			}
		}
	}
}
