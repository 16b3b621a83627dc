package records

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/refs"
)

// spoolRun writes pieces of both streams into a spool whose consumer is
// held until every write has returned, then drains it and returns what
// each stream received, in order.
func spoolRun(t *testing.T, dir string, memLimit int, hold bool) (want, got [2][]byte) {
	t.Helper()
	s := newSpool(func() string { return dir })
	s.memLimit = memLimit
	rng := rand.New(rand.NewPCG(1, 2))
	release := make(chan struct{})
	if !hold {
		close(release)
	}
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for i := range 2000 {
			st := Stream(rng.IntN(2))
			p := fmt.Appendf(nil, "%d:%s\n", i, bytes.Repeat([]byte{'a' + byte(i%26)}, rng.IntN(300)))
			want[st] = append(want[st], p...)
			s.writer(st).Write(p)
		}
		s.close()
	}()
	if hold {
		select {
		case <-wrote: // every write returned with nothing consumed
		case <-time.After(10 * time.Second):
			t.Fatal("writes were held back by a consumer that was not reading")
		}
		close(release)
	}
	<-release
	err := s.drain(func(st Stream, p []byte) { got[st] = append(got[st], p...) })
	if err != nil {
		t.Fatal(err)
	}
	<-wrote
	return want, got
}

func TestSpoolNeverHoldsTheWriterAndKeepsOrder(t *testing.T) {
	dir := t.TempDir()
	want, got := spoolRun(t, dir, 1000, true)
	for st := range want {
		if !bytes.Equal(want[st], got[st]) {
			t.Fatalf("%s: got %d bytes, want %d, or in another order", Stream(st), len(got[st]), len(want[st]))
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("the spool left %d files behind (%s); unredacted output must not outlive the process", len(left), left[0].Name())
	}
}

func TestSpoolWithoutAFileWaitsInsteadOfLosing(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(notDir, "gone") // cannot be made: a file stands where its parent should
	want, got := spoolRun(t, missing, 1000, false)
	for st := range want {
		if !bytes.Equal(want[st], got[st]) {
			t.Fatalf("%s: got %d bytes, want %d", Stream(st), len(got[st]), len(want[st]))
		}
	}
}

// TestPatientSpoolNeverSpills: output read from a regular file waits in
// memory for the analysis instead of going through a file and back. The
// consumer is held while more than the memory limit is written: the writer
// must be waiting, with no file made, and every byte arrive once released.
func TestPatientSpoolNeverSpills(t *testing.T) {
	dir := t.TempDir()
	s := newSpool(func() string { return dir })
	s.memLimit, s.patient = 1000, true
	var want []byte
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for i := range 20 {
			p := fmt.Appendf(nil, "%02d:%s\n", i, bytes.Repeat([]byte{'a' + byte(i)}, 200))
			want = append(want, p...)
			s.writer(Stdout).Write(p)
		}
		s.close()
	}()
	time.Sleep(100 * time.Millisecond) // the writer fills memory and must then wait
	select {
	case <-wrote:
		t.Fatal("4,000 bytes written past a 1,000-byte limit with nobody reading: the writer did not wait")
	default:
	}
	s.mu.Lock()
	spilled := s.file != nil
	s.mu.Unlock()
	if spilled {
		t.Fatal("a patient spool made a file")
	}
	var got []byte
	if err := s.drain(func(_ Stream, p []byte) { got = append(got, p...) }); err != nil {
		t.Fatal(err)
	}
	<-wrote
	if !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes, want %d, or in another order", len(got), len(want))
	}
}

func TestCanWaitOnlyForARegularFile(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, c := range []struct {
		name string
		in   io.Reader
		want bool
	}{
		{"regular file", f, true},
		{"pipe", r, false},
		{"reader", bytes.NewReader(nil), false},
	} {
		if got := canWait(c.in); got != c.want {
			t.Errorf("canWait(%s) = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestRunReportsTheCommandsOwnDuration slows the analysis down to a
// millisecond every 200 lines of an output larger than a pipe holds: the
// command ends long before its output is analysed, and the record says how
// long the command took, not the capture.
func TestRunReportsTheCommandsOwnDuration(t *testing.T) {
	s, _ := newService(t)
	n := 0
	lineRefs = func(line string) []refs.Ref {
		if n++; n%200 == 0 {
			time.Sleep(time.Millisecond)
		}
		return refs.Line(line)
	}
	t.Cleanup(func() { lineRefs = refs.Line })
	start := time.Now()
	r, err := s.Run(context.Background(), RunRequest{Argv: []string{"seq", "1", "300000"}})
	if err != nil {
		t.Fatal(err)
	}
	total := time.Since(start)
	if total < 1500*time.Millisecond {
		t.Fatalf("the slowed analysis took only %v", total)
	}
	if got := time.Duration(r.DurationMS) * time.Millisecond; got > total/2 {
		t.Fatalf("duration %v reported for a command whose capture took %v: the analysis was counted as the command's time", got, total)
	}
	if r.StdoutBytes != int64(len(seqOutput(300000))) {
		t.Fatalf("stdout %d bytes, want %d", r.StdoutBytes, len(seqOutput(300000)))
	}
}

func seqOutput(n int) string {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintln(&b, i)
	}
	return b.String()
}

// TestSpoolMakesItsFolder: the spool spills into the blob folder, which
// the first blob makes, and a store's first capture can need to spill
// before its first blob is made: the spool makes the folder itself
// (private, as the blobs' is), and the writer is never held.
func TestSpoolMakesItsFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "blobs")
	want, got := spoolRun(t, dir, 1000, true)
	for st := range want {
		if !bytes.Equal(want[st], got[st]) {
			t.Fatalf("%s: got %d bytes, want %d, or in another order", Stream(st), len(got[st]), len(want[st]))
		}
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the spool's folder: %v, %v; want a folder only its owner can read", fi, err)
	}
}
