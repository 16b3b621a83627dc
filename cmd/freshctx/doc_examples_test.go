package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testgit"
)

// consoleBlocks are a page's ```console blocks: each `$ ` line a
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
// long something took or how long ago, when, and commit ids.
var varying = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b\d+(\.\d+)? ?(ms|s)\b`), "<time>"},
	{regexp.MustCompile(`\b[0-9a-f]{12,40}\b`), "<commit>"},
	{regexp.MustCompile(`\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\b`), "<date>"},
}

func steady(s string) string {
	for _, v := range varying {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return strings.TrimRight(s, "\n")
}

// TestDocExamples runs the console examples of the README and of each
// page of docs/, each file's in order, in a repository of its own holding
// the package they speak of (a Go package whose Add subtracts), and holds
// each output to what the page shows, times and commit ids aside.
func TestDocExamples(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	bin := testbin.Build(t)
	run := 0
	for _, page := range append([]string{"../../README.md"}, pages...) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		blocks := consoleBlocks(string(data))
		if len(blocks) == 0 {
			continue
		}
		run++
		t.Run(filepath.Base(page), func(t *testing.T) { runExamples(t, bin, blocks) })
	}
	if run < 2 {
		t.Fatalf("console examples in %d files, want the README's and docs'", run)
	}
}

// calcRepo is the repository the examples run in.
func calcRepo(t *testing.T) *testgit.Repo {
	r := testgit.New(t)
	r.Write("go.mod", "module example.com/calc\n\ngo 1.26\n")
	r.Write("calc.go", "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int { return a - b }\n")
	r.Write("calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"+
		"\tif got := Add(2, 2); got != 4 {\n\t\tt.Errorf(\"Add(2, 2) = %d, want 4\", got)\n\t}\n}\n")
	r.Commit("init")
	return r
}

func runExamples(t *testing.T, bin string, blocks [][]string) {
	r := calcRepo(t)
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
			_ = cmd.Run() // the exit status is the example's to show
			if got, w := steady(out.String()), steady(strings.Join(want, "\n")); got != w {
				t.Errorf("$ %s\nprinted:\n%s\nthe page shows:\n%s", line, out.String(), strings.Join(want, "\n"))
			}
		}
	}
}

// configFile is a file a page shows whole: its path (the comment line
// that opens it) and its text.
type configFile struct {
	lang, path, text string
}

// configFiles are the files the ```json, ```jsonc and ```toml blocks of a
// page show: each opens with a comment naming the file (`// .mcp.json`,
// `# .codex/config.toml (with --project)`), and a jsonc block may hold
// several, each under its own comment.
func configFiles(t *testing.T, text string) []configFile {
	var files []configFile
	lang := ""
	for _, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case lang == "" && strings.HasPrefix(trimmed, "```"):
			switch kind := strings.TrimPrefix(trimmed, "```"); kind {
			case "json", "jsonc", "toml":
				lang = kind
			}
		case lang != "" && trimmed == "```":
			lang = ""
		case lang != "" && (strings.HasPrefix(trimmed, "// ") || lang == "toml" && strings.HasPrefix(trimmed, "# ")):
			path, _, _ := strings.Cut(strings.TrimLeft(trimmed, "/# "), " ")
			files = append(files, configFile{lang: lang, path: path})
		case lang != "":
			if len(files) == 0 || files[len(files)-1].lang != lang {
				t.Fatalf("a ```%s block whose first line names no file: %q", lang, l)
			}
			files[len(files)-1].text += l + "\n"
		}
	}
	return files
}

// decoded is a configuration file's value, to compare whatever its layout.
func decoded(t *testing.T, lang, text string) any {
	t.Helper()
	var v any
	var err error
	if lang == "toml" {
		err = toml.Unmarshal([]byte(text), &v)
	} else {
		err = json.Unmarshal([]byte(text), &v)
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", lang, err, text)
	}
	return v
}

// TestDocConfigsAreWhatInitWrites holds the agent configurations
// docs/agents.md shows to the files `freshctx init` writes into a new
// project.
func TestDocConfigsAreWhatInitWrites(t *testing.T) {
	data, err := os.ReadFile("../../docs/agents.md")
	if err != nil {
		t.Fatal(err)
	}
	files := configFiles(t, string(data))
	if len(files) < 5 {
		t.Fatalf("%d configuration files in docs/agents.md, want Claude Code's, Cursor's and Codex's", len(files))
	}
	bin := testbin.Build(t)
	r := testgit.New(t)
	env := append(os.Environ(), "HOME="+t.TempDir(), "CODEX_HOME=")
	for _, args := range [][]string{{"init", "claude-code"}, {"init", "cursor"}, {"init", "codex", "--project"}} {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = r.Dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("freshctx %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	for _, f := range files {
		wrote, err := os.ReadFile(filepath.Join(r.Dir, f.path))
		if err != nil {
			t.Errorf("the page shows %s: %v", f.path, err)
			continue
		}
		if !reflect.DeepEqual(decoded(t, f.lang, f.text), decoded(t, f.lang, string(wrote))) {
			t.Errorf("%s: init wrote\n%s\nthe page shows\n%s", f.path, wrote, f.text)
		}
	}
}
