package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/freshctx/freshctx/internal/testbin"
)

const perCallIntro = "What an agent pays on every tool call, in a repository of 66 files: each command and its\n" +
	"baselines run in turn, round after round, so a drift of the machine's speed falls on all alike\n" +
	"(medians; the spread is min–max). The floor is `true` and a static Go hello-world; `run -- cat`\n" +
	"prints the first KiB of a real `go test -v` log. The hooks are given what Claude Code sends (Codex's,\n" +
	"what Codex sends): a PostToolUse of a Read, and a PreToolUse of `ls -la`, a command the Bash hook does\n" +
	"not route. Each binary the bench built (freshctx, the hello-world, hookalone) runs from one of four\n" +
	"copies in turn: identical copies of one binary start a tenth or more apart, by where the machine put\n" +
	"their pages."

// perCallRounds is how many rounds the per-call costs are measured over.
func (b *bench) perCallRounds() int {
	if b.short {
		return 7
	}
	return 41
}

// callCost is one command measured in turn with the others.
type callCost struct {
	name string
	argv []string
	in   []byte   // stdin, when the command reads one
	env  []string // variables set for it beside the bench's
}

func (b *bench) perCall(ctx context.Context, sec *section) error {
	dir := filepath.Join(b.tmp, "percall")
	if err := b.makeRepo(ctx, dir, 66, 1); err != nil {
		return err
	}
	hello, err := b.buildHello()
	if err != nil {
		return err
	}
	logKiB, err := b.firstKiBOfLog()
	if err != nil {
		return err
	}
	logFile := filepath.Join(b.tmp, "go-test-1k.log")
	if err := os.WriteFile(logFile, logKiB, 0o644); err != nil {
		return err
	}
	file := filepath.Join(dir, repoPath(3))
	calls := []callCost{
		{name: "`true`", argv: []string{"true"}},
		{name: "a static Go hello-world", argv: []string{hello}},
		{name: "`git status --porcelain`", argv: []string{"git", "status", "--porcelain"}},
		{name: "`freshctx version`", argv: []string{b.bin, "version"}},
		{name: "`freshctx run -- true`", argv: []string{b.bin, "run", "--", "true"}},
		{name: "`freshctx run -- cat` of 1 KiB of `go test -v`", argv: []string{b.bin, "run", "--", "cat", logFile}},
		{name: "`freshctx hook claude-code`, PostToolUse Read", argv: []string{b.bin, "hook", "claude-code"}, in: readHookInput(dir, file)},
		{name: "`freshctx read FILE`", argv: []string{b.bin, "read", file}},
		{name: "`freshctx hook claude-code`, PreToolUse Bash `ls -la`", argv: []string{b.bin, "hook", "claude-code"}, in: bashHookInput(dir, "ls -la")},
	}
	codex, err := b.codexBashHook(ctx, dir)
	if err != nil {
		return err
	}
	calls = append(calls, codex)
	alone, err := b.hookAlone(ctx, dir, calls[6])
	if err != nil {
		return err
	}
	calls = append(calls, alone.calls...)
	b.progress(fmt.Sprintf("  %d commands in turn, %d rounds", len(calls), b.perCallRounds()))
	got, err := b.callsInTurn(ctx, dir, calls, b.perCallRounds())
	if err != nil {
		return err
	}
	at := func(i int) sample { return got[i] }
	tTrue, tHello, tStatus, tVersion, tRun, tCat, tHookRead, tRead, tHookBash := at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8)
	tCodexBash, tAloneVersion, tAloneRead := at(9), at(10), at(11)
	rows := make([][]string, len(calls))
	against := []string{"", "", "", ratio(tVersion, tHello) + " hello-world", ratio(tRun, tTrue) + " `true`",
		ratio(tCat, tRun) + " `run -- true`", ratio(tHookRead, tHello) + " hello-world", ratio(tRead, tHello) + " hello-world",
		ratio(tHookBash, tHello) + " hello-world", ratio(tCodexBash, tHello) + " hello-world",
		ratio(tAloneVersion, tHello) + " hello-world", ratio(tAloneRead, tHello) + " hello-world"}
	for i, c := range calls {
		rows[i] = []string{c.name, spread(got[i]), against[i]}
	}
	sec.table([]string{"command", "median (min–max)", "against its baseline"}, rows)
	sec.note("The row of `freshctx hook claude-code` for `ls -la` is what a Claude Code older than 2.1.85 pays for each " +
		"line it runs, and a Codex whose hooks an init from before the prefilter wrote. " +
		"With the `if` rules `freshctx init claude-code` writes (one per first word of `hooks.run_commands`), " +
		"Claude Code starts no freshctx for a line like `ls -la` at all: nothing to measure, and " +
		"`TestClaudeCodeStartsTheBashHookOnlyWhereItMayRoute` counts the hooks the real Claude Code starts. " +
		"Codex starts its Bash hook for every line; the row of Codex's Bash hook is that hook as `freshctx init codex` writes it, " +
		"run as Codex runs it (`bash -c`), given what Codex sends: its few lines of bash answer `ls -la` without " +
		"starting freshctx (checked before the rounds), and `TestCodexStartsFreshctxOnlyWhereItMayRoute` counts " +
		"the freshctx processes the real Codex starts.")
	sec.note("The last two rows are not freshctx: they are `hookalone` (bench/hookalone, never installed), "+
		"freshctx's hook and version built with only the packages they use (%d packages against freshctx's %d), "+
		"whose answer to the Read hook (unchanged, as freshctx's in every round) was checked equal to freshctx's before the rounds. "+
		"Go runs the init of every package a binary links and pages it in at every start; "+
		"the difference between those rows and freshctx's (%s and %s the hello-world, against %s and %s) "+
		"is what DESIGN.md's one binary, which links the MCP SDK, pgx and gitleaks into every call, costs a hook.",
		alone.deps, alone.freshctxDeps, ratio(tAloneVersion, tHello), ratio(tAloneRead, tHello), ratio(tVersion, tHello), ratio(tHookRead, tHello))

	over := tRun.median() - tTrue.median()
	allowed := max(time.Duration(1.2*float64(tStatus.median())), 5*time.Millisecond)
	b.report.goal("`run -- true` in a small repository within max(1.2x one `git status`, 5 ms) of `true`", over <= allowed,
		"%s over `true`, allowed %s (`git status` %s)", ms(over), ms(allowed), ms(tStatus.median()))
	b.report.goal("`run -- cat` of 1 KiB of test output within 1.5x of `run -- true`", ratioOf(tCat, tRun) <= 1.5,
		"%s against %s: %s", ms(tCat.median()), ms(tRun.median()), ratio(tCat, tRun))
	b.report.goal("`hook claude-code` for a Read at most 3x a static hello-world", ratioOf(tHookRead, tHello) <= 3,
		"%s against %s: %s", ms(tHookRead.median()), ms(tHello.median()), ratio(tHookRead, tHello))
	b.report.goal("`read FILE` at most 3x a static hello-world", ratioOf(tRead, tHello) <= 3,
		"%s against %s: %s", ms(tRead.median()), ms(tHello.median()), ratio(tRead, tHello))
	b.report.goal("the Bash hook decides a command it does not route in at most 1.5x a static hello-world", ratioOf(tHookBash, tHello) <= 1.5,
		"%s against %s: %s", ms(tHookBash.median()), ms(tHello.median()), ratio(tHookBash, tHello))
	b.report.goal("the Bash hook as `freshctx init codex` writes it decides a command it does not route in at most 1.5x a static hello-world",
		ratioOf(tCodexBash, tHello) <= 1.5, "%s against %s: %s", ms(tCodexBash.median()), ms(tHello.median()), ratio(tCodexBash, tHello))
	b.report.goal("`freshctx version` at most 2x a static hello-world", ratioOf(tVersion, tHello) <= 2,
		"%s against %s: %s", ms(tVersion.median()), ms(tHello.median()), ratio(tVersion, tHello))
	b.report.headline("Every call's cost, in turn with its floor: `run -- true` %s (`true` %s, `git status` %s), `run -- cat` of 1 KiB %s, a Read hook %s and `read FILE` %s against a hello-world's %s.",
		ms(tRun.median()), ms(tTrue.median()), ms(tStatus.median()), ms(tCat.median()), ms(tHookRead.median()), ms(tRead.median()), ms(tHello.median()))
	return b.whereTimeGoes(ctx, sec, dir, []callCost{calls[6], calls[5]})
}

// aloneCalls are hookalone's rows: its version and its answer to the
// Read hook, and how many packages it and freshctx link.
type aloneCalls struct {
	calls              []callCost
	deps, freshctxDeps int
}

// hookAlone builds bench/hookalone, freshctx's hook without the packages
// it never calls, and checks that it answers read (freshctx's Read hook
// row) as freshctx does, in the state freshctx left: after freshctx has
// seen the read once, both answer that the model holds the file
// unchanged, as they do in every round.
func (b *bench) hookAlone(ctx context.Context, dir string, read callCost) (aloneCalls, error) {
	bin := filepath.Join(b.tmp, "hookalone")
	build := testbin.Command(bin, "./bench/hookalone") // static, as freshctx is built
	build.Dir = b.root
	if out, err := build.CombinedOutput(); err != nil {
		return aloneCalls{}, fmt.Errorf("build hookalone: %v\n%s", err, out)
	}
	var a aloneCalls
	for _, p := range []struct {
		pkg string
		n   *int
	}{{"./bench/hookalone", &a.deps}, {"./cmd/freshctx", &a.freshctxDeps}} {
		out, err := b.must(ctx, b.root, "go", "list", "-deps", p.pkg)
		if err != nil {
			return aloneCalls{}, err
		}
		*p.n = bytes.Count(out, []byte("\n"))
	}
	hookRead := callCost{name: "`hookalone hook claude-code`, PostToolUse Read", argv: []string{bin, "hook", "claude-code"}, in: read.in}
	answer := func(c callCost) ([]byte, error) {
		cmd := b.cmd(ctx, dir, c.argv[0], c.argv[1:]...)
		cmd.Stdin = bytes.NewReader(c.in)
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		return out, nil
	}
	var got [3][]byte
	for i, c := range []callCost{read, read, hookRead} {
		out, err := answer(c)
		if err != nil {
			return aloneCalls{}, err
		}
		got[i] = out
	}
	if !bytes.Contains(got[1], []byte("[unchanged: ")) {
		return aloneCalls{}, fmt.Errorf("freshctx answered a Read of a file it had answered before with %q, not unchanged", got[1])
	}
	if !bytes.Equal(got[1], got[2]) {
		return aloneCalls{}, fmt.Errorf("hookalone answered the Read hook %q where freshctx answered %q", got[2], got[1])
	}
	a.calls = []callCost{{name: "`hookalone version`", argv: []string{bin, "version"}}, hookRead}
	return a, nil
}

// ratioOf is the median of s over the median of base.
func ratioOf(s, base sample) float64 { return float64(s.median()) / float64(base.median()) }

// callsInTurn runs each call once per round, one after another, after a
// round to warm up (turnsOf), a binary the bench built from one of its
// copies in turn (placed).
func (b *bench) callsInTurn(ctx context.Context, dir string, calls []callCost, rounds int) ([]sample, error) {
	program, err := b.placed(calls)
	if err != nil {
		return nil, err
	}
	fs := make([]func(int) (time.Duration, error), len(calls))
	for i, c := range calls {
		fs[i] = func(round int) (time.Duration, error) {
			cmd := b.cmd(ctx, dir, program(i, round), c.argv[1:]...)
			cmd.Env = append(cmd.Env, c.env...)
			if c.in != nil {
				cmd.Stdin = bytes.NewReader(c.in)
			}
			return b.timed(cmd)
		}
	}
	return turnsOf(rounds, fs...)
}

// buildHello builds the floor every Go command's start is measured
// against: a static hello-world.
func (b *bench) buildHello() (string, error) {
	dir := filepath.Join(b.tmp, "hello")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	files := map[string]string{
		"go.mod":  "module hello\n\ngo 1.26\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return "", err
		}
	}
	bin := filepath.Join(dir, "hello")
	c := testbin.Command(bin, ".") // static, as testbin.Hello builds it for the Go benchmarks
	c.Dir = dir
	if out, err := c.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the hello-world: %v\n%s", err, out)
	}
	return bin, nil
}

// firstKiBOfLog is the real go test -v log's first lines, up to 1 KiB.
func (b *bench) firstKiBOfLog() ([]byte, error) {
	log, err := os.ReadFile(filepath.Join(b.root, "internal/redact/testdata/go-test-v.log"))
	if err != nil {
		return nil, err
	}
	head := log[:min(len(log), 1<<10)]
	if i := bytes.LastIndexByte(head, '\n'); i > 0 {
		head = head[:i+1]
	}
	return head, nil
}

// readHookInput is what Claude Code sends the hook after its Read of file:
// all of it, its lines counted as the text split at "\n" (the empty one
// after the last newline too). Counted one fewer, as this did before, the
// hook never answers a read again "unchanged": the row measured a hook
// that did next to nothing.
func readHookInput(dir, file string) []byte {
	data, _ := os.ReadFile(file)
	lines := strings.Count(string(data), "\n") + 1
	return fmt.Appendf(nil, `{"hook_event_name":"PostToolUse","session_id":"bench","cwd":%q,"tool_name":"Read",`+
		`"tool_input":{"file_path":%q},"tool_response":{"type":"text","file":{"filePath":%q,"content":%q,`+
		`"numLines":%d,"startLine":1,"totalLines":%d}}}`, dir, file, file, string(data), lines, lines)
}

// codexBashHook is Codex's PreToolUse hook for Bash as `freshctx init
// codex --project` writes it (in a repository of its own, so the measured
// one stays as it was), run as Codex runs it on `ls -la` in dir; it fails
// unless the hook answers that line without starting freshctx.
func (b *bench) codexBashHook(ctx context.Context, dir string) (callCost, error) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return callCost{}, fmt.Errorf("Codex's hook runs in bash: %w", err)
	}
	initDir := filepath.Join(b.tmp, "codex-init")
	if err := os.MkdirAll(initDir, 0o755); err != nil {
		return callCost{}, err
	}
	if _, err := b.must(ctx, initDir, "git", "init", "-q"); err != nil {
		return callCost{}, err
	}
	env := append(os.Environ(), "CODEX_HOME=", "HOME="+filepath.Join(b.tmp, "codex-home"))
	command, err := testbin.CodexBashHook(b.bin, initDir, env)
	if err != nil {
		return callCost{}, err
	}
	c := callCost{name: "Codex's Bash hook as `freshctx init codex` writes it (`bash -c`), PreToolUse Bash `ls -la`",
		argv: []string{bash, "-c", command}, in: codexHookInput(dir, "ls -la"),
		env: []string{"PATH=" + filepath.Dir(b.bin) + string(os.PathListSeparator) + os.Getenv("PATH")}}
	// A hook that opens the store leaves the run commands beside it, which
	// the prefilter reads. With no PATH it cannot start freshctx: answering
	// nothing and exiting 0 shows it decided the line itself.
	first := b.cmd(ctx, dir, b.bin, "hook", "claude-code")
	first.Stdin = bytes.NewReader(bashHookInput(dir, "go test ./..."))
	if out, err := first.CombinedOutput(); err != nil {
		return callCost{}, fmt.Errorf("hook: %w\n%s", err, out)
	}
	check := exec.CommandContext(ctx, bash, "-c", c.argv[2])
	check.Dir, check.Env, check.Stdin = dir, []string{"PATH=/nonexistent"}, bytes.NewReader(c.in)
	if out, err := check.CombinedOutput(); err != nil || len(out) > 0 {
		return callCost{}, fmt.Errorf("Codex's Bash hook did not answer `ls -la` itself: %v %q", err, out)
	}
	return c, nil
}

// codexHookInput is a PreToolUse of Bash as Codex sends it.
func codexHookInput(dir, command string) []byte {
	return fmt.Appendf(nil, `{"session_id":"bench","turn_id":"t","transcript_path":"/tmp/rollout.jsonl","cwd":%q,`+
		`"hook_event_name":"PreToolUse","model":"gpt-5.1-codex","permission_mode":"bypassPermissions","tool_name":"Bash",`+
		`"tool_input":{"command":%q},"tool_use_id":"call_1"}`, dir, command)
}

// bashHookInput is what Claude Code sends the hook before it runs command.
func bashHookInput(dir, command string) []byte {
	return fmt.Appendf(nil, `{"hook_event_name":"PreToolUse","session_id":"bench","cwd":%q,"tool_name":"Bash",`+
		`"tool_input":{"command":%q}}`, dir, command)
}

// whereTimeGoes profiles calls with perf, when the machine has it and
// lets it sample, and tells the stages that took most of their samples.
func (b *bench) whereTimeGoes(ctx context.Context, sec *section, dir string, calls []callCost) error {
	perf, err := exec.LookPath("perf")
	if err != nil {
		sec.note("Where the time goes: not profiled, this machine has no `perf`.")
		return nil
	}
	runs := 40
	if b.short {
		runs = 5
	}
	for _, c := range calls {
		shares, samples, err := b.profile(ctx, perf, dir, c, runs)
		if err != nil {
			sec.note("Where the time goes in %s: not profiled (%v).", c.name, err)
			continue
		}
		var parts []string
		for _, s := range shares[:min(5, len(shares))] {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", s.stage, s.share))
		}
		sec.note("Where the time goes in %s (perf, %d samples over %d runs, the share of samples with each stage on the stack; stages nest): %s.",
			c.name, samples, runs, strings.Join(parts, ", "))
	}
	return nil
}

// stage is a part of a call's time, found by the functions on the stack
// while it runs (each counted once: none of one stage's functions calls
// another of them).
type stage struct {
	name  string
	funcs []string
}

const fc = "github.com/freshctx/freshctx/internal/"

var stages = []stage{
	{"the Go runtime's start and the package inits", []string{"runtime.rt0_go.abi0", "runtime.doInit1"}},
	{"page faults", []string{"asm_exc_page_fault"}},
	{"building the command tree (cobra)", []string{fc + "cli.newRootCmd"}},
	{"opening the store (SQLite, its schema)", []string{fc + "store.Open"}},
	{"git's own processes", nil}, // by command name, not by function
	{"starting the command", []string{"os.StartProcess"}},
	{"storing and redacting the output", []string{fc + "records.(*Service).startCapture.func1"}},
	{"analysing the output", []string{fc + "records.(*Service).startCapture.func2"}},
	{"saving the record", []string{fc + "records.(*Service).finish"}},
	{"the read cache's answer", []string{fc + "readcache.(*Service).Read", fc + "readcache.(*Service).Delivered"}},
	{"counting tokens", []string{fc + "tokens.Count", fc + "tokens.(*Counter).Total"}},
}

type stageShare struct {
	stage string
	share float64 // per cent of the samples
}

// profile records c runs times under perf and returns each stage's share
// of all their samples, largest first, and the number of samples.
func (b *bench) profile(ctx context.Context, perf, dir string, c callCost, runs int) ([]stageShare, int, error) {
	sum := make([]float64, len(stages))
	total := 0
	for i := range runs {
		data := filepath.Join(b.tmp, fmt.Sprintf("perf-%d.data", i))
		args := append([]string{"record", "-q", "-F", "20000", "-g", "-o", data, "--"}, c.argv...)
		rec := b.cmd(ctx, dir, perf, args...)
		if c.in != nil {
			rec.Stdin = bytes.NewReader(c.in)
		}
		if out, err := rec.CombinedOutput(); err != nil {
			return nil, 0, fmt.Errorf("perf record: %v: %s", err, strings.SplitN(string(out), "\n", 2)[0])
		}
		bySymbol, err := b.must(ctx, dir, perf, "report", "-i", data, "--stdio", "--children", "--sort", "symbol", "-g", "none")
		if err != nil {
			return nil, 0, err
		}
		byCommand, err := b.must(ctx, dir, perf, "report", "-i", data, "--stdio", "--no-children", "-n", "--sort", "comm", "-g", "none")
		if err != nil {
			return nil, 0, err
		}
		os.Remove(data)
		n, shares := perfShares(string(bySymbol), string(byCommand))
		if n == 0 {
			return nil, 0, fmt.Errorf("perf report --sort comm: no process's samples read from its %d bytes", len(byCommand))
		}
		for j := range stages {
			sum[j] += shares[j] * float64(n)
		}
		total += n
	}
	if total == 0 {
		return nil, 0, fmt.Errorf("perf took no samples")
	}
	out := make([]stageShare, len(stages))
	for j, s := range stages {
		out[j] = stageShare{s.name, sum[j] / float64(total)}
	}
	slices.SortStableFunc(out, func(a, b stageShare) int { return cmp.Compare(b.share, a.share) })
	return out, total, nil
}

// perfShares reads perf's reports of one recording: the samples taken,
// and each stage's per cent of them. bySymbol is the report of every
// symbol's share with its callees (--children); byCommand the samples of
// each process name (--no-children -n), which are counted exactly there:
// the header's "# Samples:" rounds to thousands ("3K") from 1,000 on.
func perfShares(bySymbol, byCommand string) (samples int, shares []float64) {
	shares = make([]float64, len(stages))
	children := map[string]float64{}
	for _, line := range strings.Split(bySymbol, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasSuffix(f[0], "%") || f[2] != "[.]" && f[2] != "[k]" {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSuffix(f[0], "%"), 64)
		if err == nil {
			children[f[3]] = max(children[f[3]], v)
		}
	}
	for j, s := range stages {
		for _, fn := range s.funcs {
			shares[j] += children[fn]
		}
	}
	git := slices.IndexFunc(stages, func(s stage) bool { return s.funcs == nil })
	for _, line := range strings.Split(byCommand, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.HasSuffix(f[0], "%") {
			continue
		}
		share, err1 := strconv.ParseFloat(strings.TrimSuffix(f[0], "%"), 64)
		n, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			continue
		}
		samples += n
		if comm := strings.Join(f[2:], " "); comm == "git" {
			shares[git] += share
		}
	}
	return samples, shares
}
