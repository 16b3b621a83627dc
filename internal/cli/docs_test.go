package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docFiles are the README and the docs/ pages (the benchmark report is
// written by go run ./bench, not by hand).
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"../../README.md"}
	for _, p := range pages {
		if filepath.Base(p) != "BENCHMARKS.md" {
			files = append(files, p)
		}
	}
	return files
}

// codeLines are the lines of a markdown file's fenced code blocks, with
// their line numbers.
func codeLines(text string) (lines []string, numbers []int) {
	in := false
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			continue
		}
		if in {
			lines, numbers = append(lines, l), append(numbers, i+1)
		}
	}
	return lines, numbers
}

// commandWords splits a shell line into words up to its first comment or
// operator, undoing quotes; ok is false for a line this simple reading
// cannot take (a substitution, a placeholder like … or A|B).
func commandWords(line string) (words []string, ok bool) {
	var w strings.Builder
	inWord, quote := false, byte(0)
	flush := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				w.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !inWord, c == '|' || c == ';' || c == '&' || c == '>' || c == '<':
			flush()
			return literal(words)
		case c == '$' || c == '`' || c == '(':
			return nil, false
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	flush()
	if quote != 0 {
		return nil, false
	}
	return literal(words)
}

// literal turns away a line of syntax rather than an example: one with a
// placeholder (PATH, [--flag], A|B, postgres://…).
func literal(words []string) ([]string, bool) {
	for _, word := range words {
		if strings.Contains(word, "…") || strings.Contains(word, "|") || strings.HasPrefix(word, "[") ||
			strings.ToUpper(word) == word && len(word) > 1 && !strings.HasPrefix(word, "-") {
			return nil, false
		}
	}
	return words, true
}

// TestDocsCommandsExist: every freshctx command line in the README and
// docs/ names a command freshctx has, with flags it takes.
func TestDocsCommandsExist(t *testing.T) {
	checked := 0
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines, numbers := codeLines(string(data))
		for i, l := range lines {
			l = strings.TrimPrefix(strings.TrimSpace(l), "$ ")
			if !strings.HasPrefix(l, "freshctx ") {
				continue
			}
			words, ok := commandWords(l)
			if !ok {
				continue
			}
			checked++
			if err := CheckArgs(words[1:]); err != nil {
				t.Errorf("%s:%d: %s: %v", filepath.Base(f), numbers[i], l, err)
			}
		}
	}
	if checked < 40 {
		t.Fatalf("only %d command lines checked: the reading of the docs is broken", checked)
	}
}

func TestCheckArgs(t *testing.T) {
	for _, tt := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"run", "--", "go", "test", "./..."}, true},
		{[]string{"registry", "summarize", "--auto", "--jobs", "2"}, true},
		{[]string{"registry", "summarize", "--automatic"}, false},
		{[]string{"regisrty", "sync"}, false},
		{[]string{"artifact", "get", "file_summary", "a.go", "--mode", "strict"}, true},
	} {
		if err := CheckArgs(tt.args); (err == nil) != tt.ok {
			t.Errorf("CheckArgs(%q) = %v, want ok %v", tt.args, err, tt.ok)
		}
	}
}

// TestReadmeLayoutNamesEveryPackage: the README's Layout names every
// package of the module, and none that is gone.
func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "## Layout")
	if start < 0 {
		t.Fatal("the README has no Layout section")
	}
	layout := text[start:]
	if end := strings.Index(layout[1:], "\n## "); end >= 0 {
		layout = layout[:end+1]
	}
	named := map[string]bool{}
	lines, _ := codeLines(layout)
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 0 {
			named[f[0]] = true
		}
	}
	packages := map[string]bool{}
	err = filepath.WalkDir("../..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != "../.." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			rel, _ := filepath.Rel("../..", filepath.Dir(p))
			packages[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range packages {
		if !named[p] {
			t.Errorf("the README's Layout does not name the package %s", p)
		}
	}
	for p := range named {
		if !packages[p] {
			t.Errorf("the README's Layout names %s, which holds no Go package", p)
		}
	}
}

// goTestNames are the -bench, -fuzz and -run patterns of a `go test`
// line and the package folders it names; -run is taken only where it
// names a test (a pattern like XX or '^$' that runs none is left out).
func goTestNames(words []string) (patterns, dirs []string) {
	for i := 2; i < len(words); i++ {
		w := words[i]
		switch {
		case (w == "-bench" || w == "-fuzz" || w == "-run") && i+1 < len(words):
			i++
			p := words[i]
			if w != "-run" || strings.Contains(p, "Test") {
				patterns = append(patterns, p)
			}
		case strings.HasPrefix(w, "./") && !strings.Contains(w, "..."):
			dirs = append(dirs, strings.TrimPrefix(w, "./"))
		}
	}
	return patterns, dirs
}

// testFuncs are the names of the Test, Benchmark and Fuzz functions of a
// package folder's test files.
func testFuncs(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("../..", dir, "*_test.go"))
	if err != nil || len(files) == 0 {
		t.Errorf("%s: no test files (%v)", dir, err)
		return nil
	}
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz)\w*)\(`)
	var names []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range decl.FindAllStringSubmatch(string(data), -1) {
			names = append(names, m[1])
		}
	}
	return names
}

// TestDocsGoTestsExist: every `go test` line in the README and docs/
// that names a test, benchmark or fuzz target names one that exists in
// a package it names.
func TestDocsGoTestsExist(t *testing.T) {
	checked := 0
	for _, f := range append(docFiles(t), "../../docs/BENCHMARKS.md") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range regexp.MustCompile("`?go test [^`\n]*").FindAllString(string(data), -1) {
			l = strings.TrimPrefix(l, "`")
			if i := strings.IndexAny(l, "#|;>"); i >= 0 {
				l = l[:i]
			}
			words := strings.Fields(strings.NewReplacer("'", "", `"`, "").Replace(l))
			patterns, dirs := goTestNames(words)
			if len(patterns) == 0 {
				continue
			}
			var names []string
			for _, d := range dirs {
				names = append(names, testFuncs(t, d)...)
			}
			for _, p := range patterns {
				checked++
				re, err := regexp.Compile(p)
				if err != nil {
					t.Errorf("%s: %s: %v", filepath.Base(f), l, err)
					continue
				}
				if !slices.ContainsFunc(names, re.MatchString) {
					t.Errorf("%s: %s: %q names nothing in %v", filepath.Base(f), l, p, dirs)
				}
			}
		}
	}
	if checked < 5 {
		t.Fatalf("only %d test names checked: the reading of the docs is broken", checked)
	}
}

// TestDocsNameTestsThatExist: every test, benchmark and fuzz target the
// README and docs/ name (`TestLoad`, `BenchmarkTrace2000`) is one of the
// module's.
func TestDocsNameTestsThatExist(t *testing.T) {
	var dirs []string
	err := filepath.WalkDir("../..", func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != "../.." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if err == nil && strings.HasSuffix(p, "_test.go") && !slices.Contains(dirs, filepath.Dir(p)) {
			dirs = append(dirs, filepath.Dir(p))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	exists := map[string]bool{}
	for _, d := range dirs {
		rel, _ := filepath.Rel("../..", d)
		for _, n := range testFuncs(t, rel) {
			exists[n] = true
		}
	}
	// Names of other projects' tests, which the pages quote from outputs.
	exists["TestFailGenFishCompletionFile"] = true // cobra's, found by the recall evaluation
	exists["TestCase500000"] = true                // in the generated log the recall benchmark searches
	named := regexp.MustCompile("`((?:Test|Benchmark|Fuzz)[A-Z0-9]\\w*)`")
	checked := 0
	for _, f := range append(docFiles(t), "../../docs/BENCHMARKS.md") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range named.FindAllStringSubmatch(string(data), -1) {
			n := m[1]
			checked++
			if !exists[n] {
				t.Errorf("%s names %s, which no test file declares", filepath.Base(f), n)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d names checked: the reading of the docs is broken", checked)
	}
}
