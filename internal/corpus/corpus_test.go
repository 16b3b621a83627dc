package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadTheCorpus(t *testing.T) {
	entries, err := Load("../compress/testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 50 {
		t.Fatalf("%d entries, want at least 50", len(entries))
	}
	for _, e := range entries {
		if e.Cmd == "" || e.Out == "" || len(e.Must)+len(e.MustNot) == 0 {
			t.Errorf("%s: command %q, %d bytes of output, %d facts, %d noise lines", e.Name, e.Cmd, len(e.Out), len(e.Must), len(e.MustNot))
		}
	}
}

func TestLoadReadsEveryKindOfLine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("x.cmd", "go test ./...\n# root /home/dev/x\n")
	write("x.out", "--- FAIL: TestA\n")
	write("x.facts", "# a comment\n\n@compressor go\n@diag error: a | a.go:1\n!noise\nTestA\n")
	entries, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := entries[0]
	if e.Cmd != "go test ./..." || e.Root != "/home/dev/x" || e.Compressor != "go" || len(e.Diags) != 1 ||
		e.Diags[0] != (Diag{"error: a", "a.go:1"}) || strings.Join(e.MustNot, ",") != "noise" || strings.Join(e.Must, ",") != "TestA" {
		t.Fatalf("read %+v", e)
	}
	write("x.facts", "@diag no separator\n")
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "@diag wants HEAD | LINE") {
		t.Fatalf("a bad @diag line: %v", err)
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Fatal("an empty folder loads")
	}
}
