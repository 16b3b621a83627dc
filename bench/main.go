// Command bench measures freshctx against the baselines it must beat, on
// workspaces it builds itself in a temporary folder, and writes the report
// to docs/BENCHMARKS.md with its charts in docs/bench/.
//
//	go run ./bench            # the full report, 17 to 35 minutes on 2 cores
//	go run ./bench -short     # every comparison on small inputs, in a few minutes
//
// Every figure in the report comes from this run: each measurement is
// repeated and given as its median and min–max, beside a baseline measured
// in the same run on the same workspace (git status, sha256sum, cat, zstd…)
// and the ratio of the two. Nothing is typed in by hand.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

const defaultOut = "docs/BENCHMARKS.md"

type options struct {
	short   bool
	out     string // the report
	repeats int
	keep    bool
	only    string
	repo    string // a real repository's work tree to measure run's fixed cost in, too
}

func main() {
	var o options
	flag.BoolVar(&o.short, "short", false, "small inputs, every comparison: a few minutes")
	flag.StringVar(&o.out, "out", defaultOut, "where the report goes; its charts go to bench/ beside it")
	flag.IntVar(&o.repeats, "repeats", 5, "how many times each measurement is repeated")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary folder of workspaces")
	flag.StringVar(&o.only, "only", "", "run only the sections whose title contains this text (the README's summary is then left alone)")
	flag.StringVar(&o.repo, "repo", "", "also measure `run -- true` against `git status` in this git work tree (a real repository, such as a checkout of moby); its store goes to the temporary folder, its work tree is left as it is")
	names := flag.Bool("go-benchmarks", false, "print a go test -skip expression of the Go benchmarks the report runs, and exit")
	flag.Parse()
	if *names {
		var ns []string
		for _, g := range goBenches {
			ns = append(ns, strings.TrimSuffix(g.pattern, "$"))
		}
		fmt.Println("^(" + strings.Join(ns, "|") + ")$")
		return
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// bench is one run of the report.
type bench struct {
	options
	root    string // the module's root
	tmp     string // workspaces
	bin     string // the freshctx binary under test
	started time.Time
	source  string // the commit measured (sourceOf), taken before the report is written
	report  *report
	metrics []metric // of the Go benchmarks
}

func run(ctx context.Context, o options) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "freshctx-bench-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintln(os.Stderr, "bench: workspaces in", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	b := &bench{options: o, root: root, tmp: tmp, started: time.Now()}
	if o.repo != "" {
		// Refused before minutes of building, not after.
		if _, err := b.must(ctx, o.repo, "git", "rev-parse", "--verify", "-q", "HEAD"); err != nil {
			return fmt.Errorf("-repo %s: want the work tree of a git repository with a commit: %w", o.repo, err)
		}
	}
	b.source = b.sourceOf(ctx, root)
	if b.short && b.repeats > 3 {
		b.repeats = 3
	}
	b.bin = filepath.Join(tmp, "freshctx")
	b.progress("building freshctx")
	build := b.cmd(ctx, root, "go", "build", "-o", b.bin, "./cmd/freshctx")
	build.Env = append(build.Env, "CGO_ENABLED=0") // as the README installs it
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build: %v\n%s", err, out)
	}
	b.report = newReport(b)
	for _, s := range sections {
		if o.only != "" && !strings.Contains(strings.ToLower(s.title), strings.ToLower(o.only)) {
			continue
		}
		b.progress(s.title)
		sec := b.report.section(s.title, s.intro)
		if err := s.run(b, ctx, sec); err != nil {
			return fmt.Errorf("%s: %w", s.title, err)
		}
	}
	out := o.out
	if !filepath.IsAbs(out) {
		out = filepath.Join(root, out)
	}
	if err := b.report.write(out); err != nil {
		return err
	}
	if o.short || o.only != "" || o.out != defaultOut {
		return nil // the README quotes only a full run of the report it links
	}
	return b.report.writeSummary(filepath.Join(root, "README.md"))
}

// sections are the report's parts, in order.
var sections = []struct {
	title, intro string
	run          func(*bench, context.Context, *section) error
}{
	{"The cost of every call", perCallIntro, (*bench).perCall},
	{"run's fixed cost against history length", historyIntro, (*bench).history},
	{"Freshness of N referenced files", freshnessIntro, (*bench).freshness},
	{"Registry: bootstrap, trust and verify", registryIntro, (*bench).registry},
	{"Capture throughput", captureIntro, (*bench).capture},
	{"Compression and search beside context-mode", peerIntro, (*bench).peer},
	{"Team store on PostgreSQL", teamIntro, (*bench).team},
	{"Go benchmarks", goBenchIntro, (*bench).goBenchmarks},
}

func (b *bench) progress(what string) {
	fmt.Fprintf(os.Stderr, "bench: %s (%s)\n", what, time.Since(b.started).Round(time.Second))
}

// cmd is a command run in dir with a fixed, quiet git identity.
func (b *bench) cmd(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, name, args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com", "FRESHCTX_SESSION=bench")
	return c
}

// must runs a command and fails with its output.
func (b *bench) must(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	out, err := b.cmd(ctx, dir, name, args...).Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = strings.TrimSpace(string(ee.Stderr))
		}
		return out, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, stderr)
	}
	return out, nil
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run bench from inside the freshctx module")
	}
	return filepath.Dir(mod), nil
}
