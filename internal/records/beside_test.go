package records

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/store"
)

// TestRunOpensTheStoreBesideTheCommand: with OpenStore, the command starts
// before the store is opened (the store here opens only once the command
// has said it started), and what it prints meanwhile, more than the spool
// holds in memory, is kept whole in both streams with its status.
func TestRunOpensTheStoreBesideTheCommand(t *testing.T) {
	s, _ := newService(t)
	started := filepath.Join(t.TempDir(), "started")
	out := bytes.Repeat([]byte("a line of the command's output, printed before the store opened\n"), (3*spoolMemory)/64)
	outFile := filepath.Join(t.TempDir(), "out")
	if err := os.WriteFile(outFile, out, 0o644); err != nil {
		t.Fatal(err)
	}
	late := &Service{WS: s.WS, Cwd: s.Cwd}
	open := func(ctx context.Context) (*store.Store, time.Duration, error) {
		if late.Store != nil {
			t.Error("the Service had its store before OpenStore returned it")
		}
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(started); err == nil {
				return s.Store, 72 * time.Hour, nil
			}
			if time.Now().After(deadline) {
				return nil, 0, errors.New("the command had not started 20 s after the store was asked for")
			}
		}
	}
	script := fmt.Sprintf("touch %q; cat %q; echo on stderr >&2; exit 3", started, outFile)
	rec, err := late.Run(context.Background(), RunRequest{Argv: []string{"sh", "-c", script}, Env: os.Environ(), OpenStore: open})
	if err != nil {
		t.Fatal(err)
	}
	if rec.ID == 0 || rec.NotKept != "" {
		t.Fatalf("record %d not kept: %s", rec.ID, rec.NotKept)
	}
	if *rec.ExitCode != 3 {
		t.Errorf("exit code %d, want 3", *rec.ExitCode)
	}
	if got := raw(t, late, rec.ID, Stdout); !bytes.Equal(got, out) {
		t.Errorf("stdout kept %d bytes, want the %d printed", len(got), len(out))
	}
	if got := raw(t, late, rec.ID, Stderr); string(got) != "on stderr\n" {
		t.Errorf("stderr kept %q", got)
	}
	if late.Retention != 72*time.Hour {
		t.Errorf("retention %v, want the one OpenStore gave", late.Retention)
	}
}

// TestRunBesideAStoreThatFails: a store that fails to open beside the
// command is said in the record, as one that failed before it: the command
// ran, its digest and status are there, nothing is kept, whether it
// printed on one stream, on both or on none.
func TestRunBesideAStoreThatFails(t *testing.T) {
	s, _ := newService(t)
	for _, script := range []string{"echo out; exit 4", "echo out; echo err >&2; exit 4", "exit 4"} {
		late := &Service{WS: s.WS, Cwd: s.Cwd}
		open := func(context.Context) (*store.Store, time.Duration, error) {
			return nil, 0, fmt.Errorf("open store: %w", os.ErrPermission)
		}
		rec, err := late.Run(context.Background(), RunRequest{Argv: []string{"sh", "-c", script}, Env: os.Environ(), OpenStore: open})
		if err != nil {
			t.Fatalf("%s: %v", script, err)
		}
		if rec.ID != 0 || !strings.Contains(rec.NotKept, "permission denied") {
			t.Errorf("%s: record %d, not kept %q; want none kept, saying why", script, rec.ID, rec.NotKept)
		}
		if *rec.ExitCode != 4 || strings.Contains(script, "echo out") != strings.Contains(rec.Digest, "out") {
			t.Errorf("%s: exit %d, digest %q", script, *rec.ExitCode, rec.Digest)
		}
	}
}

// TestCaptureOpensTheStoreBesideTheReading: with OpenStore, the input is
// read before the store is opened (it opens only once the input has been
// read from), and the text is kept whole.
func TestCaptureOpensTheStoreBesideTheReading(t *testing.T) {
	s, _ := newService(t)
	text := bytes.Repeat([]byte("--- FAIL: TestAdd (0.00s)\n    calc_test.go:12: got 3, want 4\n"), 50000)
	read := make(chan struct{})
	in := &signalReader{r: bytes.NewReader(text), first: read}
	late := &Service{WS: s.WS, Cwd: s.Cwd}
	open := func(context.Context) (*store.Store, time.Duration, error) {
		select {
		case <-read:
			return s.Store, 0, nil
		case <-time.After(20 * time.Second):
			return nil, 0, errors.New("the input had not been read 20 s after the store was asked for")
		}
	}
	rec, err := late.Capture(context.Background(), CaptureRequest{Input: in, OpenStore: open})
	if err != nil {
		t.Fatal(err)
	}
	if rec.ID == 0 || rec.NotKept != "" {
		t.Fatalf("record %d not kept: %s", rec.ID, rec.NotKept)
	}
	if got := raw(t, late, rec.ID, Stdout); !bytes.Equal(got, text) {
		t.Errorf("kept %d bytes, want the %d read", len(got), len(text))
	}
}

// signalReader closes first at its first read.
type signalReader struct {
	r     *bytes.Reader
	first chan struct{}
	once  bool
}

func (r *signalReader) Read(p []byte) (int, error) {
	if !r.once {
		r.once = true
		close(r.first)
	}
	return r.r.Read(p)
}
