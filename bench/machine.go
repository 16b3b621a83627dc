package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
)

// machineInfo says what the report ran on, as the machine reports it.
func machineInfo(b *bench) []string {
	var out []string
	add := func(label, value string) {
		if value != "" {
			out = append(out, label+": "+value)
		}
	}
	add("CPU", fmt.Sprintf("%s, %d logical cores usable", procField("/proc/cpuinfo", "model name"), runtime.NumCPU()))
	add("Memory", memTotal())
	add("OS", strings.Trim(procField("/etc/os-release", "PRETTY_NAME"), `"`)+" · "+command("uname", "-sr"))
	add("Load average at start (1, 5, 15 min)", strings.Join(firstN(strings.Fields(firstLine("/proc/loadavg")), 3), " "))
	add("Go", runtime.Version())
	add("git", command("git", "--version"))
	add("zstd", strings.Trim(command("zstd", "--version"), "* "))
	add("freshctx", command(b.bin, "version")+", built with CGO_ENABLED=0 (a static binary, as the README installs it)")
	add("Source measured", b.source)
	return out
}

// sourceOf names the code a report measures: the commit checked out in
// root and how many paths differed from it as the run started. The
// binary's own version cannot say it when Go stamps no VCS information
// (GOFLAGS=-buildvcs=false, a copy without .git). "" outside git.
func (b *bench) sourceOf(ctx context.Context, root string) string {
	head, err := b.must(ctx, root, "git", "rev-parse", "--short=12", "HEAD")
	if err != nil {
		return ""
	}
	commit := "commit " + strings.TrimSpace(string(head))
	out, err := b.must(ctx, root, "git", "status", "--porcelain")
	switch n := strings.Count(string(out), "\n"); {
	case err != nil:
		return commit + " (whether the work tree had changes is unknown: " + err.Error() + ")"
	case n > 0:
		return fmt.Sprintf("%s with %d changed or untracked paths", commit, n)
	}
	return commit + ", work tree clean"
}

// procField is the value of the first "key: value" or "key=value" line.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		for _, sep := range []string{":", "="} {
			if k, v, ok := strings.Cut(line, sep); ok && strings.TrimSpace(k) == key {
				return strings.TrimSpace(v)
			}
		}
	}
	return ""
}

func firstLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return line
}

func command(name string, args ...string) string {
	out, err := exec.CommandContext(context.Background(), name, args...).Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

// memTotal is MemTotal in GiB.
func memTotal() string {
	kb, err := strconv.ParseFloat(strings.TrimSuffix(procField("/proc/meminfo", "MemTotal"), " kB"), 64)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%.1f GiB", kb/(1<<20))
}

func firstN(s []string, n int) []string { return s[:min(n, len(s))] }
