package records

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestGoPackageLine(t *testing.T) {
	tests := []struct {
		line, want string
	}{
		{"ok  \texample.com/q/a\t0.003s", "example.com/q/a"},
		{"ok  \texample.com/q/a\t(cached)", "example.com/q/a"},
		{"FAIL\texample.com/q/b\t0.002s", "example.com/q/b"},
		{"FAIL\texample.com/q/b [build failed]", "example.com/q/b"},
		{"FAIL\texample.com/q/b [setup failed]", "example.com/q/b"},
		{"?   \texample.com/q/cmd\t[no test files]", "example.com/q/cmd"},
		{"FAIL", ""},
		{"--- FAIL: TestSub (0.00s)", ""},
		{"ok 1 - a tap line", ""},
		{"    calc_test.go:3: ok  \tx", ""},
	}
	for _, tt := range tests {
		got, ok := goPackageLine(tt.line)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("goPackageLine(%q) = %q, %v; want %q", tt.line, got, ok, tt.want)
		}
	}
}

func TestEnteredDir(t *testing.T) {
	tests := []struct {
		line, want string
	}{
		{"make[1]: Entering directory '/tmp/x/sub'", "/tmp/x/sub"},
		{"make: Entering directory `/tmp/x/sub'", "/tmp/x/sub"},
		{"ninja: Entering directory `build'", "build"},
		{"make[2]: Entering directory '/a dir/with spaces'", "/a dir/with spaces"},
		{"make[1]: Leaving directory '/tmp/x/sub'", ""},
		{"make: Entering directory ''", ""},
		{"Entering directory '/x'", ""},
		{"make: Entering directory /x", ""},
		{"rootdir: /tmp/x/py", "/tmp/x/py"},
		{"rootdir: /tmp/x/py, inifile: setup.cfg", "/tmp/x/py"},
		{"rootdir: relative", ""},
		{"   Compiling calc v0.1.0 (/tmp/x/calc)", "/tmp/x/calc"},
		{"   Compiling serde v1.0.200", ""},
		{" RUN  v1.6.0 /tmp/x/web", "/tmp/x/web"},
	}
	for _, tt := range tests {
		got, ok := enteredDir(tt.line)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("enteredDir(%q) = %q, %v; want %q", tt.line, got, ok, tt.want)
		}
	}
}

func TestGoPackageDirs(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "// the main module\nmodule example.com/q // comment\n\ngo 1.22\n")
	write("tools/go.mod", "module \"example.com/tools\"\n")
	write("nomod/x.go", "package x\n")
	tests := []struct {
		cwd  string
		pkgs []string
		want [][]string
	}{
		{".", []string{"example.com/q/a", "example.com/q/b/c", "example.com/q", "example.com/qq/x", "other.org/y"},
			[][]string{{"a"}, {"b/c"}, nil, nil, nil}},
		{"a", []string{"example.com/q/b"}, [][]string{{"b"}}},
		{"tools", []string{"example.com/tools/gen", "example.com/q/a"}, [][]string{{"tools/gen"}, nil}},
		{"tools/sub", []string{"example.com/tools"}, [][]string{{"tools"}}},
		{"nomod", []string{"example.com/q/a"}, [][]string{{"a"}}}, // the root's go.mod
		{".", nil, nil},
	}
	for _, tt := range tests {
		if got := goPackageDirs(root, tt.cwd, tt.pkgs); !slices.EqualFunc(got, tt.want, slices.Equal) {
			t.Errorf("goPackageDirs(%q, %q) = %q, want %q", tt.cwd, tt.pkgs, got, tt.want)
		}
	}
	if got := modulePath(filepath.Join(root, "nomod", "go.mod")); got != "" {
		t.Errorf("modulePath of no go.mod = %q", got)
	}
}

func TestGoBlocks(t *testing.T) {
	g := newGoBlocks()
	g.seen(0) // in a's block
	g.seen(1)
	g.seen(0)
	g.ended("a")
	g.seen(1) // in b's block
	g.ended("b")
	for range 3 { // a again, many times: nothing grows
		g.seen(0)
		g.ended("a")
	}
	g.seen(2) // a block that never ends
	want := [][]int{{0}, {0, 1}}
	if !slices.EqualFunc(g.of[:2], want, slices.Equal) || !slices.Equal(g.pkgs, []string{"a", "b"}) {
		t.Fatalf("of %v pkgs %q, want %v and [a b]", g.of, g.pkgs, want)
	}
	if g.unended(0) || g.unended(1) || !g.unended(2) || g.over != -1 {
		t.Fatalf("unended %v %v %v, over %d", g.unended(0), g.unended(1), g.unended(2), g.over)
	}
	for i := range maxOutDirs {
		g.ended(fmt.Sprintf("p%d", i))
	}
	g.seen(3)
	g.ended("one too many")
	if g.over != 3 {
		t.Fatalf("over = %d after a package past the bound, want reference 3", g.over)
	}
}
