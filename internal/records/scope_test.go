package records

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
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
		if got := InputScope(root, tt.cwd, tt.argv); !slices.Equal(got, tt.want) {
			t.Errorf("InputScope(%s, %q) =\n%q, want\n%q", tt.cwd, tt.argv, got, tt.want)
		}
	}
	// The output names files of the packages the command was given, not of
	// those they import: its paths are looked for in the named folders.
	argv := []string{"sh", "-c", "go test ./args/ | tail -n 5"}
	if got, want := namedScope(root, ".", argv), []string{"go.mod", "go.sum", "args/*"}; !slices.Equal(got, want) {
		t.Errorf("namedScope = %q, want %q", got, want)
	}
}

// Where a go command's packages cannot be told from the module's own
// files, its scope is the module whole, or the workspace's folder.
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
			if got := InputScope(root, "m/p", []string{"go", "test"}); !slices.Equal(got, tt.want) {
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

// A folder among the changed inputs (its entries changed: a file added or
// removed) is named with a trailing slash, so it is not read as a file.
func TestChangedFoldersEndInASlash(t *testing.T) {
	start := time.Unix(1000, 0)
	later := start.Add(time.Minute)
	st := scopeTimes{complete: true, entries: []scopeEntry{
		{path: "café", at: later, dir: true}, {path: "a.go", at: later}, {path: ".", at: later, dir: true},
	}}
	got := st.changedSince(start, start, nil)
	if want := []string{"café/", "a.go", "./"}; !slices.Equal(got.Paths, want) || got.Count != 3 {
		t.Fatalf("paths = %q (%d), want %q", got.Paths, got.Count, want)
	}
}

// A file the record's check found fresh (touched, or changed and changed
// back) is not among the changed inputs: its bytes are the stamped ones.
// A folder of the same name as a fresh file is still counted.
func TestFreshFilesAreNotChangedInputs(t *testing.T) {
	start := time.Unix(1000, 0)
	later := start.Add(time.Minute)
	st := scopeTimes{complete: true, entries: []scopeEntry{
		{path: "touched.go", at: later}, {path: "edited.go", at: later}, {path: "pkg", at: later, dir: true},
	}}
	got := st.changedSince(start, start, map[string]bool{"touched.go": true, "pkg": true})
	if want := []string{"edited.go", "pkg/"}; !slices.Equal(got.Paths, want) || got.Count != 2 {
		t.Fatalf("paths = %q (%d), want %q", got.Paths, got.Count, want)
	}
}

// A file written in the command's first timer tick can carry a time
// before the record's start by time.Now: the kernel stamps files with a
// coarser clock. The walk counts from the start by that clock, kept with
// the record.
func TestInputsCountFromTheFileClock(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "gen.go")
	if err := os.WriteFile(p, []byte("package gen\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	at := freshness.ChangeTime(info)
	// time.Now read the start just after the write's time; the file clock
	// had read it just before.
	r := &Record{root: root, inputs: []string{"**"}, CreatedAt: at.Add(time.Millisecond), DurationMS: 5,
		fileStart: at.Add(-time.Millisecond), Freshness: &freshness.Result{}}
	checkInputs([]*Record{r})
	if got := r.Freshness.InputsChanged; got.Count != 1 || !slices.Equal(got.Paths, []string{"gen.go"}) {
		t.Fatalf("inputs changed = %d %q, want gen.go", got.Count, got.Paths)
	}
	// A record made before the file clock was kept counts from its start.
	old := &Record{root: root, inputs: []string{"**"}, CreatedAt: at.Add(time.Millisecond), DurationMS: 5,
		Freshness: &freshness.Result{}}
	checkInputs([]*Record{old})
	if got := old.Freshness.InputsChanged; got.Count != 0 {
		t.Fatalf("record without a file clock start: inputs changed = %d %q, want none", got.Count, got.Paths)
	}
}

// A command that writes a file of its scope at once has it among the
// inputs that changed, every time: the file clock's start is kept with
// the record and read back.
func TestAFileWrittenAtTheStartIsAChangedInput(t *testing.T) {
	s, _ := newService(t)
	for i := range 5 {
		rec := run(t, s, fmt.Sprintf("echo %d > gen%d.txt", i, i))
		got, err := s.Get(context.Background(), rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CheckAll(context.Background(), []*Record{got}); err != nil {
			t.Fatal(err)
		}
		if ch := got.Freshness.InputsChanged; !slices.Contains(ch.Paths, fmt.Sprintf("gen%d.txt", i)) {
			t.Fatalf("run %d: inputs changed = %d %q, want gen%d.txt among them", i, ch.Count, ch.Paths, i)
		}
	}
}

// A symlink of the scope changed when its target did; a target the walk
// does not reach on its own leaves the answer incomplete.
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
			st := walkScope(root, tt.scope, since)
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

// A project's scope is its folder, its workspace's where it belongs to
// one, and the work tree where a project file may name something outside.
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
			if got := InputScope(root, tt.cwd, tt.argv); !slices.Equal(got, tt.want) {
				t.Errorf("scope = %q, want %q", got, tt.want)
			}
		})
	}
}

// The file clock stamps a write in the tick the command started in with
// the start's own time, and a file system of whole seconds with the start's
// second: both are changes since the start.
func TestChangesInTheStartsTickCount(t *testing.T) {
	start := time.Unix(1000, 250_000_000)
	st := scopeTimes{complete: true, entries: []scopeEntry{
		{path: "same-tick.go", at: start},
		{path: "whole-second.go", at: time.Unix(1000, 0)},
		{path: "before.go", at: start.Add(-time.Millisecond)},
	}}
	got := st.changedSince(start, start, nil)
	if want := []string{"same-tick.go", "whole-second.go"}; !slices.Equal(got.Paths, want) || got.Count != 2 {
		t.Fatalf("paths = %q (%d), want %q", got.Paths, got.Count, want)
	}
}

// inputsOfRun runs script (with the scope given, when inputs is set) and
// checks the record's input scope as show would.
func inputsOfRun(t *testing.T, s *Service, script string, inputs ...string) *freshness.InputsChanged {
	t.Helper()
	req := RunRequest{Argv: []string{"sh", "-c", script}, Env: os.Environ()}
	req.Inputs = inputs
	rec, err := s.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(context.Background(), rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckAll(context.Background(), []*Record{got}); err != nil {
		t.Fatal(err)
	}
	return got.Freshness.InputsChanged
}

// TestInputsCompleteOnlyWhereKnown: a scope chosen from the command is a
// guess — a Go test reads ../shared/want.txt through runtime.Caller, a
// pytest test Path(__file__).parent.parent — so its answer is never
// complete; a scope given with --inputs is, until a folder of it changes
// while the command runs (a file of it deleted then leaves no time behind).
func TestInputsCompleteOnlyWhereKnown(t *testing.T) {
	s, r := newService(t)
	r.Write("pkg/want_test.go", "package pkg\n\nimport (\n\t\"os\"\n\t\"path/filepath\"\n\t\"runtime\"\n\t\"testing\"\n)\n\n"+
		"func TestWant(t *testing.T) {\n\t_, f, _, _ := runtime.Caller(0)\n\tos.ReadFile(filepath.Join(filepath.Dir(f), \"..\", \"..\", \"shared\", \"want.txt\"))\n}\n")
	r.Write("d/data.txt", "data\n")
	time.Sleep(20 * time.Millisecond)
	guessed := inputsOfRun(t, s, "cd pkg && echo go test .")
	if guessed.Complete || !guessed.Guessed {
		t.Fatalf("a guessed scope: %+v, want complete false, guessed true", guessed)
	}
	given := inputsOfRun(t, s, "cat d/data.txt", "d/**")
	if !given.Complete || given.Guessed || given.Count != 0 {
		t.Fatalf("a given scope nothing changed in: %+v, want complete", given)
	}
	deleted := inputsOfRun(t, s, "rm d/data.txt; sleep 0.05", "d/**")
	if deleted.Complete || deleted.Unchecked == "" {
		t.Fatalf("a file of the scope deleted while the command ran: %+v, want not complete", deleted)
	}
}
