package records

import (
	"context"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
)

// TestRunWhenBlobFillsUp: the blob write fails part way (here the file size
// limit, as a disk filling up would): the command still runs to its end,
// its digest comes back, and the record says why it was not kept. The limit
// applies to a whole process, so the run happens in a child: this test's
// binary again, running fillUp.
func TestRunWhenBlobFillsUp(t *testing.T) {
	if os.Getenv("FRESHCTX_TEST_FILL_UP") == "1" {
		fillUp(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunWhenBlobFillsUp$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FRESHCTX_TEST_FILL_UP=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the run under a file size limit: %v\n%s", err, out)
	}
}

func fillUp(t *testing.T) {
	s, _ := newService(t)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	signal.Ignore(syscall.SIGXFSZ) // the write fails with EFBIG instead
	script := "head -c 3000000 /dev/urandom | base64; echo 'a.go:1: the last line'; exit 3"
	limit := syscall.Rlimit{Cur: 512 << 10, Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limit); err != nil {
		t.Skip(err)
	}
	rec, err := s.Run(context.Background(), RunRequest{Argv: []string{"sh", "-c", script}, Env: os.Environ()})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if *rec.ExitCode != 3 || rec.ID != 0 || !strings.Contains(rec.NotKept, "store stdout") {
		t.Fatalf("exit %d, id %d, not kept %q", *rec.ExitCode, rec.ID, rec.NotKept)
	}
	if !strings.Contains(rec.Digest, "a.go:1: the last line") {
		t.Fatalf("the digest lost the end of the output: %q", rec.Digest[max(0, len(rec.Digest)-300):])
	}
}
