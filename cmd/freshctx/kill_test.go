package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/records"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/testrace"
	"github.com/freshctx/freshctx/internal/workspace"
)

// killRig drives the real binary against one store and kills it.
type killRig struct {
	t         *testing.T
	bin       string
	dir       string
	rng       *rand.Rand
	next      int // label number of the next record
	artifacts map[string]bool
}

func (k *killRig) command(args ...string) *exec.Cmd {
	cmd := exec.Command(k.bin, args...)
	cmd.Dir = k.dir
	cmd.Env = os.Environ()
	// Its own process group, so a kill takes the command run runs too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

func (k *killRig) must(args ...string) string {
	k.t.Helper()
	out, err := k.command(args...).CombinedOutput()
	if err != nil {
		k.t.Fatalf("freshctx %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// recordOutput is what the run labelled k<n> prints: large enough that
// writing its blob and its row takes a while.
func recordOutput(n int) []byte {
	return bytes.Repeat([]byte(fmt.Sprintf("line %d of a long test log\n", n)), 4000)
}

func (k *killRig) runArgs() []string {
	n := k.next
	k.next++
	return []string{"run", "--label", "k" + strconv.Itoa(n), "--",
		"sh", "-c", fmt.Sprintf(`yes "line %d of a long test log" | head -n 4000`, n)}
}

func (k *killRig) artifactArgs(i int) []string {
	content := bytes.Repeat([]byte(fmt.Sprintf("artifact version %d\n", i)), 20000)
	path := filepath.Join(k.t.TempDir(), "content")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		k.t.Fatal(err)
	}
	k.artifacts[string(content)] = true
	return []string{"artifact", "put", "file_summary", "a.go", "--content-file", path}
}

// writer returns the arguments of a random writer that deletes blobs (or,
// for run, adds them).
func (k *killRig) writer(i int, ids []int64) []string {
	pick := func() string {
		if len(ids) == 0 {
			return "1"
		}
		return strconv.FormatInt(ids[k.rng.IntN(len(ids))], 10)
	}
	switch k.rng.IntN(6) {
	case 0:
		return []string{"forget", pick()}
	case 1:
		return []string{"forget", pick(), pick()}
	case 2:
		return k.artifactArgs(i)
	case 3:
		return []string{"registry", "summarize", "a.go", "--text", fmt.Sprintf("summary %d %s", i, strings.Repeat("x", 5000))}
	case 4:
		// A new version of a.go read, then versions no entry needs dropped.
		os.WriteFile(filepath.Join(k.dir, "a.go"), []byte(fmt.Sprintf("package a\n\n// version %d\nfunc A() {}\n", i)), 0o644)
		if k.rng.IntN(2) == 0 {
			return []string{"read", "a.go", "--session", fmt.Sprintf("s%d", i%3)}
		}
		return []string{"session", "gc"}
	}
	return k.runArgs()
}

// killAt starts a writer and SIGKILLs its process group after delay.
func (k *killRig) killAt(args []string, delay time.Duration) {
	cmd := k.command(args...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		k.t.Fatal(err)
	}
	time.Sleep(delay)
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
}

// check opens the store as the next command would and verifies integrity
// and every listed record's raw output byte for byte. It returns the ids.
func (k *killRig) check(ctx context.Context, it int, what []string) []int64 {
	k.t.Helper()
	st, err := store.Open(ctx, store.DefaultPath(k.dir), store.Options{})
	if err != nil {
		k.t.Fatalf("kill %d (%s): open: %v", it, strings.Join(what, " "), err)
	}
	defer st.Close()
	var ok string
	if err := st.DB().QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		k.t.Fatalf("kill %d (%s): integrity_check = %q, %v", it, strings.Join(what, " "), ok, err)
	}
	ws, err := workspace.Discover(k.dir)
	if err != nil {
		k.t.Fatal(err)
	}
	svc := &records.Service{WS: ws, Store: st, Cwd: k.dir}
	recs, err := svc.List(ctx, 0)
	if err != nil {
		k.t.Fatalf("kill %d: list: %v", it, err)
	}
	ids := make([]int64, 0, len(recs))
	for _, r := range recs {
		n, err := strconv.Atoi(strings.TrimPrefix(r.Label, "k"))
		if err != nil {
			k.t.Fatalf("record %d has label %q", r.ID, r.Label)
		}
		rc, err := svc.Raw(ctx, r.ID, records.Stdout)
		if err != nil {
			k.t.Fatalf("kill %d (%s): record %d lost its raw output: %v", it, strings.Join(what, " "), r.ID, err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, recordOutput(n)) {
			k.t.Fatalf("kill %d (%s): record %d raw output differs (%d bytes, %v)", it, strings.Join(what, " "), r.ID, len(got), err)
		}
		ids = append(ids, r.ID)
	}
	return ids
}

// checkArtifact: the artifact is cold or one complete version.
func (k *killRig) checkArtifact(it int) {
	k.t.Helper()
	cmd := k.command("artifact", "get", "file_summary", "a.go", "--mode", "relaxed")
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok && (ee.ExitCode() == 3 || ee.ExitCode() == 4) {
			return // stale or cold: a later read regenerates it
		}
		k.t.Fatalf("kill %d: artifact get: %v %s", it, err, out)
	}
	if !k.artifacts[string(out)] {
		k.t.Fatalf("kill %d: artifact content is no version that was put (%d bytes)", it, len(out))
	}
}

// TestKillsLoseNothing SIGKILLs every writer that deletes blobs (forget,
// artifact put replacing content, registry summarize, session gc, read)
// and run at random points, then checks what the next command sees.
func TestKillsLoseNothing(t *testing.T) {
	testrace.Skip(t, "drives separate processes")
	kills := 60
	if testing.Short() {
		kills = 50
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := testgit.New(t)
	r.Write("a.go", "package a\n\nfunc A() {}\n")
	r.Write("b.go", "package a\n\nfunc B() {}\n")
	r.Commit("init")
	k := &killRig{t: t, bin: testbin.Build(t), dir: r.Dir, rng: rand.New(rand.NewPCG(seed, 1)), artifacts: map[string]bool{}}
	ctx := context.Background()

	// Seed the store and time each writer once, unkilled.
	for range 20 {
		k.must(k.runArgs()...)
	}
	k.must("registry", "sync")
	slowest := time.Duration(0)
	for i, args := range [][]string{k.runArgs(), k.artifactArgs(0), {"registry", "summarize", "a.go", "--text", "first"},
		{"read", "a.go", "--session", "s0"}, {"session", "gc"}, {"forget", "1"}} {
		start := time.Now()
		k.must(args...)
		slowest = max(slowest, time.Since(start))
		_ = i
	}
	ids := k.check(ctx, 0, []string{"seed"})
	t.Logf("writers take up to %v; killing at random points within that", slowest)

	for it := 1; it <= kills; it++ {
		args := k.writer(it, ids)
		k.killAt(args, time.Duration(k.rng.Int64N(int64(slowest))))
		ids = k.check(ctx, it, args)
		k.checkArtifact(it)
		if len(ids) < 8 {
			for range 6 {
				k.must(k.runArgs()...)
			}
			ids = k.check(ctx, it, []string{"refill"})
		}
	}

	out := k.must("doctor", "--fix", "--json")
	if !strings.Contains(out, `"ok":true`) {
		t.Fatalf("doctor --fix: %s", out)
	}
	st, err := store.Open(ctx, store.DefaultPath(k.dir), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	files, err := st.CheckBlobFiles(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if files.Leftovers() != 0 || len(files.Missing) != 0 || len(files.Unknown) != 0 {
		t.Fatalf("after doctor --fix: orphans %v, temporary %v, trash %v, unknown %v, missing %d",
			files.Orphans, files.Temporary, files.Trash, files.Unknown, len(files.Missing))
	}
	k.check(ctx, kills+1, []string{"after doctor --fix"})
}
