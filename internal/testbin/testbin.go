// Package testbin builds the freshctx binary for tests and benchmarks that
// call it as a process, the way agents and shells do.
//
// It builds as the README installs it: with CGO_ENABLED=0, a static binary.
// freshctx uses no C code; without cgo the binary links no C library and
// each command starts sooner (BenchmarkStartup in cmd/freshctx).
//
// A package whose TestMain runs its tests through Run builds freshctx once
// for all of them; elsewhere each Build builds it again, into the test's
// own temporary directory.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Main is the import path of the freshctx command.
const Main = "github.com/freshctx/freshctx/cmd/freshctx"

// sharedBuild makes, once, the build every Build of a Run returns; nil
// outside a Run.
var sharedBuild func() (string, error)

// Run runs m's tests with one build of freshctx for them all, made by the
// first Build, and removes it when they are done; it returns m.Run's code.
// The tests must leave the binary and its directory as they found them.
func Run(m interface{ Run() int }) int {
	dir, err := os.MkdirTemp("", "freshctx-testbin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testbin:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	sharedBuild = sync.OnceValues(func() (string, error) {
		bin := filepath.Join(dir, "freshctx")
		if out, err := Command(bin, Main).CombinedOutput(); err != nil {
			return "", fmt.Errorf("%w\n%s", err, out)
		}
		return bin, nil
	})
	defer func() { sharedBuild = nil }()
	return m.Run()
}

// Build builds freshctx from this module and returns its path: the one
// build of the run under Run, or a new one in a temporary directory.
func Build(tb testing.TB) string {
	tb.Helper()
	if sharedBuild != nil {
		bin, err := sharedBuild()
		if err != nil {
			tb.Fatalf("build freshctx: %v", err)
		}
		return bin
	}
	bin := filepath.Join(tb.TempDir(), "freshctx")
	if out, err := Command(bin, Main).CombinedOutput(); err != nil {
		tb.Fatalf("build freshctx: %v\n%s", err, out)
	}
	return bin
}

// Command is the `go build` of pkg into bin, as Build runs it, with the
// build flags given; set its Dir to build another checkout of the module
// (an earlier release) or a Program.
func Command(bin, pkg string, flags ...string) *exec.Cmd {
	args := append(append([]string{"build"}, flags...), "-o", bin, pkg)
	c := exec.Command("go", args...)
	c.Env = append(os.Environ(), "CGO_ENABLED=0")
	return c
}

// Program writes a module of one main package, src, into a temporary
// directory and returns the directory, for Command to build.
func Program(tb testing.TB, module, src string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, body := range map[string]string{"go.mod": "module " + module + "\n\ngo 1.26\n", "main.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// Hello builds a static Go hello-world, the floor any Go command's start
// is measured against, and returns its path.
func Hello(tb testing.TB) string {
	tb.Helper()
	dir := Program(tb, "hello", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n")
	bin := filepath.Join(dir, "hello")
	c := Command(bin, ".")
	c.Dir = dir
	if out, err := c.CombinedOutput(); err != nil {
		tb.Fatalf("build hello: %v\n%s", err, out)
	}
	return bin
}
