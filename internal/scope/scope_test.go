package scope

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestInputScope(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.mod":                  "module example.com/m\n\ngo 1.22\n",
		"args/args.go":            "package args\n\nimport (\n\t\"strings\"\n\n\t\"example.com/m/lib\"\n)\n\nvar _ = strings.Fields\nvar _ = lib.X\n",
		"args/args_test.go":       "package args_test\n\nimport \"example.com/m/internal/check\"\n\nvar _ = check.Y\n",
		"lib/lib.go":              "package lib\n\nimport \"embed\"\n\n//go:embed static \"my files/a.txt\" version.txt\nvar X embed.FS\n",
		"internal/check/check.go": "package check\n\nconst Y = 1\n",
		"cmd/x/main.go":           "package main\n\nimport _ \"example.com/m/args\"\n\nfunc main() {}\n",
		"svc/go.mod":              "module example.com/svc\n",
		"svc/api/api.go":          "package api\n",
		"web/package.json":        "{}",
		"py/pyproject.toml":       "",
		"crate/Cargo.toml":        "",
	})
	args := []string{"args/*", "args/testdata/**", "internal/check/*", "internal/check/testdata/**",
		"lib/*", "lib/my files/**", "lib/static/**", "lib/testdata/**", "lib/version.txt/**"}
	tests := []struct {
		cwd  string
		argv []string
		want []string
	}{
		{".", []string{"go", "test", "./args/"}, append([]string{"go.mod", "go.sum"}, args...)},
		{".", []string{"go", "test", "-run", "TestX", "example.com/m/args"}, append([]string{"go.mod", "go.sum"}, args...)},
		{".", []string{"sh", "-c", "CGO_ENABLED=0 go build ./cmd/x"},
			append([]string{"go.mod", "go.sum"}, slices.Insert(args, 2, "cmd/x/*", "cmd/x/testdata/**")...)},
		{".", []string{"go", "test", "./internal/check"}, []string{"go.mod", "go.sum", "internal/check/*", "internal/check/testdata/**"}},
		{".", []string{"go", "test", "-run", "TestX", "./..."}, []string{"go.mod", "go.sum", "**"}},
		{".", []string{"go", "vet", "./a/...", "./b"}, []string{"go.mod", "go.sum", "**"}},
		{".", []string{"go", "test", "-C", "args", "."}, []string{"go.mod", "go.sum", "**"}},
		{".", []string{"go", "test", "../elsewhere"}, []string{"go.mod", "go.sum", "**"}},
		{"svc/api", []string{"go", "test"}, []string{"svc/go.mod", "svc/go.sum", "svc/api/*", "svc/api/testdata/**"}},
		{"crate/src", []string{"cargo", "test"}, []string{"crate/**"}},
		{"web/src", []string{"npx", "jest", "--ci"}, []string{"web/**"}},
		{"web", []string{"npm", "test"}, []string{"web/**"}},
		{"py", []string{"python3", "-m", "pytest", "-q"}, []string{"py/**"}},
		{".", []string{"go", "run", "./cmd/x", "input.txt"}, []string{"**"}},
		{".", []string{"make", "check"}, []string{"**"}},
		{".", nil, []string{"**"}},
		// Shell lines: every command's inputs, after a cd; a filter of the
		// output reads no file; anything unknown is the work tree.
		{".", []string{"sh", "-c", "go test ./args/ 2>&1 | tail -n 50"}, append([]string{"go.mod", "go.sum"}, args...)},
		{".", []string{"bash", "-c", "go test ./args/ | grep -v '^ok' | tee log.txt"}, append([]string{"go.mod", "go.sum"}, args...)},
		{".", []string{"sh", "-c", "cd svc/api && go test"}, []string{"svc/go.mod", "svc/go.sum", "svc/api/*", "svc/api/testdata/**"}},
		{".", []string{"sh", "-c", "go test ./internal/check && cd web && npm test"},
			[]string{"go.mod", "go.sum", "internal/check/*", "internal/check/testdata/**", "web/**"}},
		{".", []string{"sh", "-c", "go test ./args/ && node check.js"}, []string{"**"}},
		{".", []string{"sh", "-c", "go test ./args/ | grep -f patterns.txt"}, []string{"**"}},
		{".", []string{"sh", "-c", "go test ./args/; cat notes.txt"}, []string{"**"}},
		{".", []string{"sh", "-c", "go test $PKG"}, []string{"**"}},
		{".", []string{"sh", "-c", "cd .. && go test ./..."}, []string{"**"}},
		{".", []string{"sh", "-c", "go test ./args/ ("}, []string{"**"}},
		{".", []string{"sh", "-c", "echo hi"}, []string{"**"}},
		{".", []string{"sh", "-c", "go test ./args/ && sort < names.txt"}, []string{"**"}},
		{".", []string{"sh", "-c", "set -e; export GOFLAGS=-count=1; go test ./internal/check 2>&1 | tail -n 20"},
			[]string{"go.mod", "go.sum", "internal/check/*", "internal/check/testdata/**"}},
		{".", []string{"sh", "-c", "echo $(cat notes.txt)"}, []string{"**"}},
	}
	for _, tt := range tests {
		if got := Of(root, tt.cwd, tt.argv); !slices.Equal(got, tt.want) {
			t.Errorf("Of(%s, %q) =\n%q, want\n%q", tt.cwd, tt.argv, got, tt.want)
		}
	}
	// The output names files of the packages the command was given, not of
	// those they import: its paths are looked for in the named folders.
	argv := []string{"sh", "-c", "go test ./args/ | tail -n 5"}
	if got, want := Named(root, ".", argv), []string{"go.mod", "go.sum", "args/*"}; !slices.Equal(got, want) {
		t.Errorf("Named = %q, want %q", got, want)
	}
}

func TestGoScopeFallsBackToTheModule(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"go.work", map[string]string{"go.work": "go 1.22\nuse ./m\n", "m/go.mod": "module example.com/m\n", "m/p/p.go": "package p\n"},
			[]string{"**"}},
		{"replace by a folder", map[string]string{"m/go.mod": "module example.com/m\nreplace example.com/o => ../o\n", "m/p/p.go": "package p\n"},
			[]string{"m/go.mod", "m/go.sum", "m/**"}},
		{"vendor", map[string]string{"m/go.mod": "module example.com/m\n", "m/vendor/modules.txt": "", "m/p/p.go": "package p\n"},
			[]string{"m/go.mod", "m/go.sum", "m/**"}},
		{"no module path", map[string]string{"m/go.mod": "go 1.22\n", "m/p/p.go": "package p\n"},
			[]string{"m/go.mod", "m/go.sum", "m/**"}},
		{"a file that does not parse", map[string]string{"m/go.mod": "module example.com/m\n", "m/p/p.go": "package p\nimport (\n"},
			[]string{"m/go.mod", "m/go.sum", "m/**"}},
		{"a test that opens a file above its folder", map[string]string{"m/go.mod": "module example.com/m\n",
			"m/p/p_test.go": "package p\nvar f = \"../q/testdata/golden.txt\"\n"},
			[]string{"m/go.mod", "m/go.sum", "m/**"}},
		{"a path joined from the parent", map[string]string{"m/go.mod": "module example.com/m\n",
			"m/p/p_test.go": "package p\nimport \"path/filepath\"\nvar f = filepath.Join(\"..\", \"q\")\n"},
			[]string{"m/go.mod", "m/go.sum", "m/**"}},
		{"a path compared with the parent", map[string]string{"m/go.mod": "module example.com/m\n",
			"m/p/p.go": "package p\nfunc up(rel string) bool { return rel == \"..\" }\n"},
			[]string{"m/go.mod", "m/go.sum", "m/p/*", "m/p/testdata/**"}},
		{"an imported package's file that does not parse", map[string]string{"m/go.mod": "module example.com/m\n",
			"m/p/p.go": "package p\nimport _ \"example.com/m/q\"\n", "m/q/q.go": "package q\nimport (\n"},
			[]string{"m/go.mod", "m/go.sum", "m/**"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tt.files)
			if got := Of(root, "m/p", []string{"go", "test"}); !slices.Equal(got, tt.want) {
				t.Errorf("scope = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEmbedGlobs(t *testing.T) {
	src := "package p\n//go:embed a b/c/*.txt \"d e/f\" `g`\n//go:embed *.tmpl\n//go:embed all:h\n\t//go:embed \"broken\n"
	want := []string{"a/**", "b/**", "d e/**", "g/**", "**", "h/**", "**"}
	if got := embedGlobs([]byte(src)); !slices.Equal(got, want) {
		t.Errorf("embedGlobs = %q, want %q", got, want)
	}
}

func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMatchScope(t *testing.T) {
	tests := []struct {
		scope []string
		path  string
		want  bool
	}{
		{[]string{"args/*"}, "args/args.go", true},
		{[]string{"args/*"}, "args/sub/x.go", false},
		{[]string{"a/**"}, "a/b/c/d.go", true},
		{[]string{"a/**"}, "a", true},
		{[]string{"**"}, "README.md", true},
		{[]string{"**/*.go"}, "x/y.go", true},
		{[]string{"**/*.go"}, "x/y.md", false},
		{[]string{"go.mod"}, "go.mod", true},
		{[]string{"go.mod"}, "svc/go.mod", false},
	}
	for _, tt := range tests {
		if got := matchScope(tt.scope, tt.path); got != tt.want {
			t.Errorf("matchScope(%q, %s) = %v, want %v", tt.scope, tt.path, got, tt.want)
		}
	}
}

func TestChangedFoldersEndInASlash(t *testing.T) {
	start := time.Unix(1000, 0)
	later := start.Add(time.Minute)
	st := Times{complete: true, entries: []scopeEntry{
		{path: "café", at: later, dir: true}, {path: "a.go", at: later}, {path: ".", at: later, dir: true},
	}}
	got := st.ChangedSince(start, start, nil)
	if want := []string{"café/", "a.go", "./"}; !slices.Equal(got.Paths, want) || got.Count != 3 {
		t.Fatalf("paths = %q (%d), want %q", got.Paths, got.Count, want)
	}
}

func TestFreshFilesAreNotChangedInputs(t *testing.T) {
	start := time.Unix(1000, 0)
	later := start.Add(time.Minute)
	st := Times{complete: true, entries: []scopeEntry{
		{path: "touched.go", at: later}, {path: "edited.go", at: later}, {path: "pkg", at: later, dir: true},
	}}
	got := st.ChangedSince(start, start, map[string]bool{"touched.go": true, "pkg": true})
	if want := []string{"edited.go", "pkg/"}; !slices.Equal(got.Paths, want) || got.Count != 2 {
		t.Fatalf("paths = %q (%d), want %q", got.Paths, got.Count, want)
	}
}

func TestScopeWalkFollowsLinks(t *testing.T) {
	root := t.TempDir()
	mk := func(rel, body string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	mk("data/a.txt", "v1")
	mk("lib/b.go", "package lib")
	mk("pkg/own.txt", "x")
	link("../data/a.txt", "pkg/a.txt")
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // past a tick of the file clock
	since := time.Now()
	time.Sleep(20 * time.Millisecond)
	mk("data/a.txt", "v2") // the target, outside the scope, changes

	tests := []struct {
		name     string
		scope    []string
		extra    func()
		changed  []string
		complete bool
	}{
		{"target outside the scope changed", []string{"pkg/*"}, nil, []string{"pkg/a.txt"}, true},
		{"target also in the scope", []string{"**"}, nil, []string{"data/a.txt", "pkg/a.txt"}, true},
		{"target outside the root", []string{"pkg/*"}, func() { link(outside, "pkg/out.txt") }, nil, false},
		{"dangling", []string{"pkg/*"}, func() { link("../data/none.txt", "pkg/none.txt") }, nil, false},
		{"folder outside the scope", []string{"pkg/*"}, func() { link("../lib", "pkg/lib") }, nil, false},
		{"folder the walk reads anyway", []string{"**"}, func() { link("../lib", "pkg/lib") }, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, l := range []string{"pkg/out.txt", "pkg/none.txt", "pkg/lib"} {
				os.Remove(filepath.Join(root, l))
			}
			if tt.extra != nil {
				tt.extra()
			}
			st := Walk(root, tt.scope, since)
			var files []string
			for _, e := range st.entries {
				if !e.dir && !slices.Contains([]string{"pkg/out.txt", "pkg/none.txt", "pkg/lib"}, e.path) {
					files = append(files, e.path)
				}
			}
			slices.Sort(files)
			for _, want := range tt.changed {
				if !slices.Contains(files, want) {
					t.Errorf("changed files %q, want %s among them", files, want)
				}
			}
			if st.complete != tt.complete {
				t.Errorf("complete = %v, want %v", st.complete, tt.complete)
			}
		})
	}
}

func TestProjectScopes(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		cwd   string
		argv  []string
		want  []string
	}{
		{"a crate", map[string]string{"c/Cargo.toml": "[package]\nname = \"c\"\n"}, "c/src", []string{"cargo", "test"}, []string{"c/**"}},
		{"a crate of a workspace", map[string]string{"Cargo.toml": "[workspace]\nmembers = [\"crates/*\"]\n",
			"crates/c/Cargo.toml": "[package]\nname = \"c\"\n"}, "crates/c", []string{"cargo", "test"}, []string{"**"}},
		{"a crate of a workspace below the root", map[string]string{"rs/Cargo.toml": "[workspace]\n",
			"rs/c/Cargo.toml": "[package]\nname = \"c\"\n"}, "rs/c", []string{"cargo", "test"}, []string{"rs/**"}},
		{"a path dependency", map[string]string{"c/Cargo.toml": "[dependencies]\nutil = { path = \"util\" }\n"},
			"c", []string{"cargo", "test"}, []string{"**"}},
		{"an npm file: dependency", map[string]string{"web/package.json": `{"dependencies": {"ui": "file:ui"}}`},
			"web", []string{"npm", "test"}, []string{"**"}},
		{"a pnpm workspace", map[string]string{"js/pnpm-workspace.yaml": "packages: ['*']\n", "js/a/package.json": "{}"},
			"js/a", []string{"pnpm", "test"}, []string{"js/**"}},
		{"npm workspaces", map[string]string{"package.json": `{"workspaces": ["pkgs/*"]}`, "pkgs/a/package.json": "{}"},
			"pkgs/a", []string{"npx", "jest"}, []string{"**"}},
		{"a tsconfig extending one above", map[string]string{"app/tsconfig.json": `{"extends": "../tsconfig.base.json"}`},
			"app", []string{"tsc", "--noEmit"}, []string{"**"}},
		{"a jest configuration mapping modules above", map[string]string{"web/package.json": "{}",
			"web/jest.config.js": "module.exports = {moduleNameMapper: {'^@shared/(.*)$': '<rootDir>/../shared/$1'}}"},
			"web", []string{"npx", "jest"}, []string{"**"}},
		{"a conftest adding a folder above", map[string]string{"py/pyproject.toml": "[project]\n",
			"py/conftest.py": "import sys\nsys.path.insert(0, '../shared')\n"}, "py", []string{"pytest"}, []string{"**"}},
		{"a test importing from above the project", map[string]string{"web/package.json": "{}",
			"web/src/a.test.js": "const x = require('../../shared/x')\nconst y = require('../lib/y')\n"},
			"web", []string{"npx", "jest"}, []string{"**"}},
		{"imports that stay in the project", map[string]string{"web/package.json": "{}",
			"web/src/a.test.js": "import y from \"../lib/y\"\nimport z from './z'\n"},
			"web", []string{"npx", "jest"}, []string{"web/**"}},
		{"a crate including a file above it", map[string]string{"c/Cargo.toml": "[package]\n",
			"c/src/lib.rs": "const D: &str = include_str!(\"../../data/d.txt\");\n"},
			"c", []string{"cargo", "test"}, []string{"**"}},
		{"a crate including its own README", map[string]string{"c/Cargo.toml": "[package]\n",
			"c/src/lib.rs": "#![doc = include_str!(\"../README.md\")]\n"},
			"c", []string{"cargo", "test"}, []string{"c/**"}},
		{"a path joined from the parent", map[string]string{"py/pyproject.toml": "[project]\n",
			"py/tests/t.py": "import os\nROOT = os.path.join(os.path.dirname(__file__), '..', '..')\n"},
			"py", []string{"pytest"}, []string{"**"}},
		{"a hidden folder is not read", map[string]string{"web/package.json": "{}",
			"web/.cache/m/index.js": "require('../../../../x')\n"},
			"web", []string{"npm", "test"}, []string{"web/**"}},
		{"node_modules is not read", map[string]string{"web/package.json": "{}",
			"web/node_modules/m/index.js": "require('../../../../x')\n"},
			"web", []string{"npm", "test"}, []string{"web/**"}},
		{"a uv workspace", map[string]string{"py/pyproject.toml": "[tool.uv.workspace]\nmembers = [\"libs/*\"]\n",
			"py/libs/a/pyproject.toml": "[project]\nname = \"a\"\n"}, "py/libs/a", []string{"pytest"}, []string{"py/**"}},
		{"a project on its own", map[string]string{"py/pyproject.toml": "[project]\nname = \"p\"\n# xpath= is not a path key\n"},
			"py", []string{"pytest"}, []string{"py/**"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tt.files)
			if got := Of(root, tt.cwd, tt.argv); !slices.Equal(got, tt.want) {
				t.Errorf("scope = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestChangesInTheStartsTickCount(t *testing.T) {
	start := time.Unix(1000, 250_000_000)
	st := Times{complete: true, entries: []scopeEntry{
		{path: "same-tick.go", at: start},
		{path: "whole-second.go", at: time.Unix(1000, 0)},
		{path: "before.go", at: start.Add(-time.Millisecond)},
	}}
	got := st.ChangedSince(start, start, nil)
	if want := []string{"same-tick.go", "whole-second.go"}; !slices.Equal(got.Paths, want) || got.Count != 2 {
		t.Fatalf("paths = %q (%d), want %q", got.Paths, got.Count, want)
	}
}

// BenchmarkInputScope measures choosing the input scope of go test ./p0
// in a module of 30 packages of 10 files each, p0 importing p1 and so on
// to p29: every package's files are read for their imports, which every
// run of such a command pays as it ends.
func BenchmarkInputScope(b *testing.B) {
	root := b.TempDir()
	files := map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n"}
	body := strings.Repeat("// Some documentation of the function below, as real files have.\nfunc f() {}\n", 12)
	for i := range 30 {
		for j := range 10 {
			imp := ""
			if i < 29 && j == 0 {
				imp = fmt.Sprintf("import _ \"example.com/m/p%d\"\n", i+1)
			}
			files[fmt.Sprintf("p%d/f%d.go", i, j)] = fmt.Sprintf("package p%d\n\n%s%s", i, imp, strings.ReplaceAll(body, "f()", fmt.Sprintf("f%d()", j)))
		}
	}
	writeTree(b, root, files)
	var n int
	for b.Loop() {
		n = len(Of(root, ".", []string{"go", "test", "./p0"}))
	}
	if n != 2+2*30 {
		b.Fatalf("%d globs, want %d: the imports were not all followed", n, 2+2*30)
	}
}

func TestCommandDirs(t *testing.T) {
	sh := func(line string) []string { return []string{"bash", "-c", line} }
	tests := []struct {
		argv []string
		want []string
	}{
		{sh("cd sub && gcc -c util.c"), []string{"sub"}},
		{sh("(cd web; npm test)"), []string{"web"}},
		{sh("cd a && cd b && make"), []string{"a", "a/b"}},
		{sh("cd 'my dir'&&make"), []string{"my dir"}},
		{sh("cd /abs/x && make"), []string{"/abs/x"}},
		{sh("cd $HOME && make; cd ~ ; cd -; cd \"$(pwd)/x\""), nil},
		{sh("cd \"my dir\"/sub && make"), []string{"my dir/sub"}},
		{sh("cd 'unterminated && make"), nil},
		{sh("echo cd x && git -C repo status"), []string{"repo"}},
		{sh("make -C sub all && go -C tools test ./..."), []string{"sub", "tools"}},
		{sh("npm --prefix web test"), []string{"web"}},
		{sh("npm test --workspace=packages/web && npm test --workspace api"), []string{"packages/web", "api"}},
		{sh("make --directory=sub"), []string{"sub"}},
		{sh("pushd lib >/dev/null && cargo test"), []string{"lib"}},
		{sh("cd"), nil},
		{sh("cd && make"), nil},
		{[]string{"make", "-C", "sub"}, []string{"sub"}},
		{[]string{"go", "test", "./..."}, nil},
		{sh("echo \"cd x\""), nil},
		{sh("cargo test --manifest-path crates/calc/Cargo.toml"), []string{"crates/calc"}},
		{[]string{"cargo", "build", "--manifest-path=calc/Cargo.toml"}, []string{"calc"}},
	}
	for _, tt := range tests {
		if got := CommandDirs(tt.argv); !slices.Equal(got, tt.want) {
			t.Errorf("CommandDirs(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}

func FuzzCommandDirs(f *testing.F) {
	f.Add("cd 'a b' && make -C \"c\"; (cd d || exit) | tee x")
	f.Add("cd $HOME/x && npm --prefix=\"$(pwd)/web\" test")
	f.Fuzz(func(t *testing.T, line string) {
		for _, d := range CommandDirs([]string{"sh", "-c", line}) {
			if d == "" || strings.HasPrefix(d, "~") {
				t.Fatalf("folder %q from %q", d, line)
			}
		}
	})
}
