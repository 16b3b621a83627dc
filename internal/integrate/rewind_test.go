package integrate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Lines as Claude Code writes them to a transcript (2.1.330).
const (
	userLine     = `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"Read notes.txt."},"uuid":"17d2"}` + "\n"
	leafLine     = `{"type":"last-prompt","lastPrompt":"Read notes.txt.","leafUuid":"146b","sessionId":"c1"}` + "\n"
	rewoundLine  = `{"type":"last-prompt","leafUuid":"00000000-0000-0000-0000-000000000000","explicit":true,"sessionId":"c1"}` + "\n"
	mentionsLine = `{"type":"user","message":{"role":"user","content":"a \"last-prompt\" with \"explicit\":true, quoted"},"uuid":"9a"}` + "\n"
)

func TestScanTranscript(t *testing.T) {
	long := `{"type":"user","message":{"content":"` + strings.Repeat("x", 200<<10) + `"}}` + "\n"
	for _, tc := range []struct {
		name    string
		content string
		from    int64
		to      int64
		moved   bool
	}{
		{"nothing new", userLine + leafLine, 0, int64(len(userLine + leafLine)), false},
		{"a rewind", userLine + rewoundLine + leafLine, 0, int64(len(userLine + rewoundLine + leafLine)), true},
		{"a rewind read before", userLine + rewoundLine + leafLine, int64(len(userLine + rewoundLine)), int64(len(userLine + rewoundLine + leafLine)), false},
		{"the words inside a message", mentionsLine, 0, int64(len(mentionsLine)), false},
		{"an unfinished last line waits", userLine + strings.TrimSuffix(rewoundLine, "\n"), 0, int64(len(userLine)), false},
		{"a line longer than the buffer", long + rewoundLine, 0, int64(len(long + rewoundLine)), true},
		{"an unfinished long line waits", userLine + strings.TrimSuffix(long, "\n"), 0, int64(len(userLine)), false},
		{"a transcript that shrank", userLine, 10 << 10, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			to, moved := scanTranscript(path, tc.from)
			if to != tc.to || moved != tc.moved {
				t.Fatalf("scan from %d: to %d moved %v, want %d %v", tc.from, to, moved, tc.to, tc.moved)
			}
		})
	}
	if _, moved := scanTranscript(filepath.Join(t.TempDir(), "gone.jsonl"), 0); !moved {
		t.Fatal("a transcript that cannot be read did not count as a reset")
	}
	if _, moved := scanTranscript(t.TempDir(), 0); !moved {
		t.Fatal("a transcript path naming a folder did not count as a reset")
	}
}

// TestRewindIsABarrier: through the hook, a Read after the transcript
// gained an explicit leaf entry is whole again, once; Reads go on being
// unchanged while it gains nothing of the kind.
func TestRewindIsABarrier(t *testing.T) {
	rc, path, content := readFixture(t)
	transcript := filepath.Join(t.TempDir(), "c1.jsonl")
	write(t, transcript, userLine)
	replaced := func() bool {
		t.Helper()
		h := readHook(path, content, 1, 30)
		h.TranscriptPath = transcript
		return claudeHook(t, rc, h) != ""
	}
	appendLine := func(line string) {
		f, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(line)
		f.Close()
	}
	for i, step := range []struct {
		append   string
		replaced bool
	}{
		{"", false}, {leafLine, true}, {mentionsLine, true},
		{rewoundLine, false}, {userLine, true}, // the rewind: whole once, then the note
	} {
		appendLine(step.append)
		if got := replaced(); got != step.replaced {
			t.Fatalf("step %d: replaced %v, want %v", i, got, step.replaced)
		}
	}
}

// FuzzScanTranscript: whatever the transcript holds, the scan stops at
// the end of a complete line, and a line setting the leaf is found.
func FuzzScanTranscript(f *testing.F) {
	f.Add([]byte(userLine+rewoundLine+leafLine), int64(0))
	f.Add([]byte(mentionsLine+"{\"type\":\"last-prompt\""), int64(3))
	f.Fuzz(func(t *testing.T, content []byte, from int64) {
		if from < 0 || from > int64(len(content)) {
			from = 0
		}
		path := filepath.Join(t.TempDir(), "t.jsonl")
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		to, moved := scanTranscript(path, from)
		if to < from || to > int64(len(content)) || to > from && content[to-1] != '\n' {
			t.Fatalf("scan from %d of %d bytes stopped at %d", from, len(content), to)
		}
		want := false
		for _, line := range bytes.SplitAfter(content[from:to], []byte("\n")) {
			want = want || len(line) <= 64<<10 && setsLeaf(line) // a longer line is a message, never a leaf entry
		}
		if moved != want {
			t.Fatalf("moved %v, want %v", moved, want)
		}
	})
}

// BenchmarkScanTranscript reads a 20 MB transcript (2 MB with -short) of
// tool results and leaf entries whole, as the first Read hook of a resumed
// long conversation does, against reading it and counting its lines.
func BenchmarkScanTranscript(b *testing.B) {
	size := 20 << 20
	if testing.Short() {
		size = 2 << 20
	}
	var t bytes.Buffer
	result := `{"type":"user","message":{"content":[{"type":"tool_result","content":"` + strings.Repeat("a line of a file\\n", 400) + `"}]},"uuid":"u"}` + "\n"
	for t.Len() < size {
		t.WriteString(userLine + result + leafLine)
	}
	path := filepath.Join(b.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, t.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	var scan, base time.Duration
	for b.Loop() {
		start := time.Now()
		if to, moved := scanTranscript(path, 0); to != int64(t.Len()) || moved {
			b.Fatalf("scan: %d %v", to, moved)
		}
		scan += time.Since(start)
		start = time.Now()
		data, err := os.ReadFile(path)
		if err != nil || bytes.Count(data, []byte("\n")) == 0 {
			b.Fatal(err)
		}
		base += time.Since(start)
	}
	b.ReportMetric(float64(scan.Microseconds())/float64(b.N)/1000, "scan_ms")
	b.ReportMetric(float64(base.Microseconds())/float64(b.N)/1000, "readfile_count_ms")
	b.ReportMetric(float64(scan)/float64(base), "x_readfile")
}
