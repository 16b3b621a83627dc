package integrate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// The rewrite of a shell line, run in bash, leaves the shell as the
// original does: the same working directory, variables and exit status,
// the same commands run in the same folders with the same environment,
// the same files written. Lines are drawn from the shapes agents write:
// cd, export, assignments, unset, test and build commands (some with
// assignments before them), joined by ;, &&, || and |, with redirections,
// substitutions, subshells and background jobs.

// rewrite is the rewrite under test (a variable, for the mutation check).
var rewrite = routedLine

var rewriteAtoms = []string{
	"cd sub", "cd ..", "cd nowhere", "export X=1", "X=2", "unset X", "true", "false", "echo hi",
	"go test ./...", "go test ./... 2>&1", "go test -fail", "FOO=3 go test ./...", "go build ./...", "go vet -fail",
	"go test ./... > out.txt", "x=$(go test ./...)", "(cd sub && go test ./...)", "go test ./... 2>&1 | tail -1",
	"{ cd sub; go test ./...; }", "! go test -fail", "go test ./... &", "exit 3", "export FOO=4",
}

func drawLine(t *rapid.T) string {
	n := rapid.IntRange(1, 5).Draw(t, "statements")
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(rapid.SampledFrom([]string{" ; ", " && ", " || ", " | ", "\n"}).Draw(t, "join"))
		}
		b.WriteString(rapid.SampledFrom(rewriteAtoms).Draw(t, "atom"))
	}
	return b.String()
}

// shellState runs line with bash in a fresh copy of the world and returns
// what it left: its status, folder and variables, the stand-in go's log
// of what it ran, and the files written.
func shellState(t *rapid.T, bin, line string) string {
	dir, err := os.MkdirTemp("", "rewrite")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := line + "\n__s=$?; printf 'status=%s pwd=%s X=%s FOO=%s x=%s' \"$__s\" \"${PWD#" + dir + "}\" \"${X-unset}\" \"${FOO-unset}\" \"${x-unset}\" > " +
		filepath.Join(dir, "state") + "\nwait\n"
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "GOLOG="+filepath.Join(dir, "go.log"), "ROOT="+dir)
	out, _ := cmd.CombinedOutput()
	status := "exited"
	if cmd.ProcessState != nil {
		status = fmt.Sprint(cmd.ProcessState.ExitCode())
	}
	state, _ := os.ReadFile(filepath.Join(dir, "state"))
	log, _ := os.ReadFile(filepath.Join(dir, "go.log"))
	// A job in the background runs beside what follows it: the commands
	// run are compared, not their order.
	lines := strings.Split(string(log), "\n")
	slices.Sort(lines)
	log = []byte(strings.Join(lines, "\n"))
	files, _ := os.ReadFile(filepath.Join(dir, "out.txt"))
	_ = out // what reaches the agent differs by design: the digest
	return fmt.Sprintf("exit %s; %s\ngo ran:\n%s\nout.txt: %q", status, state, log, files)
}

func TestRewriteLeavesTheShellAsTheOriginal(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := t.TempDir()
	// The stand-in go logs where it ran, how and with what FOO, and fails
	// when asked to; the stand-in freshctx runs what follows "run --", as
	// freshctx run does (exit status included), printing its own footer.
	for name, text := range map[string]string{
		"go": "#!/bin/sh\necho \"go $* in ${PWD#$ROOT} FOO=${FOO-unset}\" >> \"$GOLOG\"\necho output of go $*\n" +
			"case \"$*\" in *-fail*) exit 1;; esac\n",
		"freshctx": "#!/bin/sh\n[ \"$1 $2\" = 'run --' ] || exit 99\nshift 2\n\"$@\"\ns=$?\necho 'freshctx: record 1'\nexit $s\n",
	} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	prefixes := []string{"go test", "go build", "go vet"}
	routed := 0
	rapid.Check(t, func(t *rapid.T) {
		line := drawLine(t)
		rewritten, ok := rewrite(line, prefixes, "freshctx")
		if !ok {
			return
		}
		routed++
		if before, after := shellState(t, bin, line), shellState(t, bin, rewritten); before != after {
			t.Fatalf("%q rewritten as %q leaves the shell otherwise:\noriginal: %s\nrewritten: %s", line, rewritten, before, after)
		}
	})
	if routed < 3 { // a third of the lines drawn are routed; -short draws 20
		t.Fatalf("%d drawn lines were routed: the property was hardly tested", routed)
	}
	t.Logf("%d lines routed and compared", routed)
}
