package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/freshctx/freshctx/internal/testbin"
	"github.com/freshctx/freshctx/internal/testgit"
)

// mcpFrom starts the server in dir with env added, as an editor does that
// launches it from the user's home.
func mcpFrom(t *testing.T, dir string, env []string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(testbin.Build(t), "mcp")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	client := mcp.NewClient(&mcp.Implementation{Name: "editor", Version: "0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// TestMCPRootIsAProjectNeverHome: started from the home folder, the server
// works in the client's root or WORKSPACE_FOLDER_PATHS; with neither it
// refuses, and it never makes a store in the home folder.
func TestMCPRootIsAProjectNeverHome(t *testing.T) {
	home := t.TempDir()
	r := testgit.New(t)
	r.Write("calc.go", "package calc\n\n// Add adds two ints and returns their sum to the caller.\nfunc Add(a, b int) int { return a + b }\n")
	r.Commit("init")
	env := []string{"HOME=" + home}

	t.Run("no root", func(t *testing.T) {
		cs := mcpFrom(t, home, env)
		text, failed := callText(t, cs, "read", map[string]any{"path": "calc.go"})
		if !failed || !strings.Contains(text, "home folder, not a project") {
			t.Fatalf("read from home: %q", text)
		}
	})
	t.Run("client roots", func(t *testing.T) {
		// A 2025-06-18 client that offers roots is asked for them.
		cmd := exec.Command(testbin.Build(t), "mcp")
		cmd.Dir, cmd.Env = home, append(os.Environ(), env...)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
		lines := bufio.NewScanner(stdout)
		next := func(want string) string {
			for lines.Scan() {
				if strings.Contains(lines.Text(), want) {
					return lines.Text()
				}
			}
			t.Fatalf("no %s", want)
			return ""
		}
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"editor","version":"0"}}}`+"\n")
		next(`"id":"i"`)
		io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		var req struct{ ID json.RawMessage }
		json.Unmarshal([]byte(next(`"method":"roots/list"`)), &req)
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"roots":[{"uri":"file://`+r.Dir+`"}]}}`+"\n")
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"read","arguments":{"path":"calc.go"}}}`+"\n")
		if line := next(`"id":"r"`); !strings.Contains(line, "func Add") {
			t.Fatalf("read through the client's root: %s", line)
		}
	})
	t.Run("WORKSPACE_FOLDER_PATHS", func(t *testing.T) {
		cs := mcpFrom(t, home, append(env, "WORKSPACE_FOLDER_PATHS="+r.Dir))
		if text, failed := callText(t, cs, "read", map[string]any{"path": "calc.go"}); failed || !strings.Contains(text, "func Add") {
			t.Fatalf("read through WORKSPACE_FOLDER_PATHS: %q", text)
		}
	})
	if _, err := os.Stat(filepath.Join(home, ".freshctx")); !os.IsNotExist(err) {
		t.Fatalf("a store was made in the home folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".freshctx")); err != nil {
		t.Fatalf("no store in the project: %v", err)
	}
}

// TestMCPSessionEndsWithItsConnection: the read session a server made for
// one connection is listed as ended once the client goes, and gc deletes it.
func TestMCPSessionEndsWithItsConnection(t *testing.T) {
	r := testgit.New(t)
	r.Write("calc.go", "package calc\n\n// Add adds two ints and returns their sum to the caller.\nfunc Add(a, b int) int { return a + b }\n")
	r.Commit("init")
	cs := mcpFrom(t, r.Dir, nil)
	// The read, after the barrier a read no hook named a session for gets.
	if text, failed := callText(t, cs, "read", map[string]any{"path": "calc.go"}); failed {
		t.Fatal(text)
	}
	bin := testbin.Build(t)
	list := func() string {
		cmd := exec.Command(bin, "session", "list")
		cmd.Dir = r.Dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("session list: %v %s", err, out)
		}
		return string(out)
	}
	if out := list(); !strings.Contains(out, "served by pid") {
		t.Fatalf("while connected: %s", out)
	}
	cs.Close()
	var out string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if out = list(); strings.Contains(out, "ended") {
			break
		}
	}
	if !strings.Contains(out, "ended (session gc deletes it)") {
		t.Fatalf("after the connection closed: %s", out)
	}
	gc := exec.Command(bin, "session", "gc")
	gc.Dir = r.Dir
	if b, err := gc.CombinedOutput(); err != nil || !strings.Contains(string(b), "removed 1 ended sessions (2 entries)") {
		t.Fatalf("session gc: %v %s", err, b)
	}
	if out := list(); !strings.Contains(out, "no sessions yet") {
		t.Fatalf("after gc: %s", out)
	}
}
