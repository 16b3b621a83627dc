package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testgit"
)

// rawMCP speaks newline-delimited JSON-RPC to the real binary, so a test
// can send what no SDK client would.
type rawMCP struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	err   *strings.Builder
}

func startRawMCP(t *testing.T, dir string) *rawMCP {
	t.Helper()
	cmd := exec.Command(testbin.Build(t), "mcp")
	cmd.Dir = dir
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	m := &rawMCP{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 64), err: &strings.Builder{}}
	cmd.Stderr = m.err
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 4<<20)
		for sc.Scan() {
			m.lines <- sc.Text()
		}
		close(m.lines)
	}()
	m.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	m.expect(`"id":"init"`, 10*time.Second)
	m.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return m
}

func (m *rawMCP) send(line string) {
	m.t.Helper()
	if _, err := io.WriteString(m.stdin, line+"\n"); err != nil {
		m.t.Fatalf("write to the server: %v (stderr: %s)", err, m.err)
	}
}

// expect returns the first line containing want, failing after timeout or
// when the server stops.
func (m *rawMCP) expect(want string, timeout time.Duration) string {
	m.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case l, ok := <-m.lines:
			if !ok {
				m.t.Fatalf("the server stopped before answering %s (stderr: %s)", want, m.err)
			}
			if strings.Contains(l, want) {
				return l
			}
		case <-deadline:
			m.t.Fatalf("no %s after %v", want, timeout)
		}
	}
}

// TestMCPAnswersEveryHostileMessage: each message gets a JSON-RPC error
// (or, where it is a valid request, an answer) and the server keeps serving.
func TestMCPAnswersEveryHostileMessage(t *testing.T) {
	r := testgit.New(t)
	m := startRawMCP(t, r.Dir)
	huge := `{"jsonrpc":"2.0","id":99,"method":"ping","params":{"pad":"` + strings.Repeat("a", 17<<20) + `"}}`
	for i, tc := range []struct{ name, msg, want string }{
		{"null", `null`, `"code":-32600`},
		{"string", `"x"`, `"code":-32600`},
		{"number", `123`, `"code":-32600`},
		{"empty object", `{}`, `"code":-32600`},
		{"empty batch", `[]`, `"code":-32600`},
		{"batch", `[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]`, `batches are not supported`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32600`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, `"id":null,"error":{"code":-32600`},
		{"id 1e400", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, `"id":null,"error":{"code":-32600`},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `"code":-32600`},
		{"no method", `{"jsonrpc":"2.0","id":8}`, `"id":8,"error"`},
		{"method not a string", `{"jsonrpc":"2.0","id":9,"method":7}`, `"id":9,"error"`},
		{"params a string", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":"x"}`, `"id":10,"error"`},
		{"null params", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":null}`, `"id":11,"error"`},
		{"unknown tool", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"nope"}}`, `"id":12,"error"`},
		{"bad arguments", `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"show","arguments":"x"}}`, `"id":13,"result"`},
		{"not json", `{"jsonrpc":`, `"code":-32700`},
		{"line over 16 MiB", huge, `message over 16 MiB`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m.t = t
			m.send(tc.msg)
			m.expect(tc.want, 20*time.Second)
			ping := fmt.Sprintf(`"id":"ping-%d"`, i)
			m.send(`{"jsonrpc":"2.0","id":"ping-` + strconv.Itoa(i) + `","method":"ping"}`)
			m.expect(ping, 10*time.Second)
		})
	}
}

// TestMCPFinishesCallsWhenInputEnds: a client that sends a call and closes
// stdin still gets the answer.
func TestMCPFinishesCallsWhenInputEnds(t *testing.T) {
	r := testgit.New(t)
	m := startRawMCP(t, r.Dir)
	m.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"run","arguments":{"command":"sleep 1; echo finished-after-eof"}}}`)
	m.stdin.Close()
	line := m.expect(`"id":"slow"`, 20*time.Second)
	if !strings.Contains(line, "finished-after-eof") {
		t.Fatalf("answer: %s", line)
	}
	done := make(chan error)
	go func() { done <- m.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop after answering")
	}
}

// TestMCPCancelEndsTheCommandAndKeepsTheRecord: notifications/cancelled
// kills the run's whole process group; the record of what ran is kept.
func TestMCPCancelEndsTheCommandAndKeepsTheRecord(t *testing.T) {
	r := testgit.New(t)
	m := startRawMCP(t, r.Dir)
	pidFile := filepath.Join(r.Dir, "child.pid")
	cmd := fmt.Sprintf(`echo started-long-run; sleep 60 & echo $! > %s; wait`, pidFile)
	m.send(`{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"run","arguments":{"command":` + strconv.Quote(cmd) + `}}}`)
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if pid == 0 {
		t.Fatal("the command did not start")
	}
	m.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"long","reason":"user"}}`)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			break
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the command's child outlived the cancel")
		}
	}
	m.send(`{"jsonrpc":"2.0","id":"list","method":"tools/call","params":{"name":"recall","arguments":{"query":"started-long-run"}}}`)
	for deadline := time.Now().Add(10 * time.Second); ; {
		line := m.expect(`"id":"list"`, 10*time.Second)
		if strings.Contains(line, "started-long-run") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no record of the cancelled run: %s", line)
		}
		time.Sleep(100 * time.Millisecond)
		m.send(`{"jsonrpc":"2.0","id":"list","method":"tools/call","params":{"name":"recall","arguments":{"query":"started-long-run"}}}`)
	}
}

// TestMCPRunReportsProgress: with a progress token, a long run sends
// notifications/progress before its answer.
func TestMCPRunReportsProgress(t *testing.T) {
	r := testgit.New(t)
	m := startRawMCP(t, r.Dir)
	m.send(`{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"_meta":{"progressToken":"tok-1"},"name":"run","arguments":{"command":"sleep 2.5; echo done"}}}`)
	note := m.expect(`notifications/progress`, 10*time.Second)
	if !strings.Contains(note, `"progressToken":"tok-1"`) || !strings.Contains(note, "running") {
		t.Fatalf("progress: %s", note)
	}
	m.expect(`"id":"p"`, 10*time.Second)
}

// TestMCPCancelledReadIsNotTrusted: a client that cancels a read ignores its
// answer even when the answer was already written (the cancel crossed it),
// so the next read of the file gets the content again, not "unchanged";
// a read that is not cancelled is trusted as before.
func TestMCPCancelledReadIsNotTrusted(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.txt", strings.Repeat("a line of the file\n", 40))
	r.Commit("init")
	m := startRawMCP(t, r.Dir)
	read := func(id string) string {
		// The session a hook names: the one where reads are trusted.
		m.send(`{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"read","arguments":{"path":"a.txt","session":"claude-c1"}}}`)
		return m.expect(`"id":"`+id+`"`, 10*time.Second)
	}
	first := read("r1")
	if !strings.Contains(first, "a line of the file") || strings.Contains(first, "freshctx/delivery") {
		t.Fatalf("first read: %s", first)
	}
	m.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r1","reason":"user"}}`)
	if again := read("r2"); !strings.Contains(again, "a line of the file") {
		t.Fatalf("a read after the cancelled one: %s", again)
	}
	if third := read("r3"); !strings.Contains(third, "unchanged") {
		t.Fatalf("a read after a delivered one: %s", third)
	}
}
