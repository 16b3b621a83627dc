package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/testbin"
)

// TestDeadCodeEliminationStaysOn: nothing freshctx links can reach a call
// of reflect's Method or MethodByName with a name known only at run time.
// One such call (text/template's Execute makes one, and cobra's
// SetVersionTemplate executes a template) makes the linker keep every
// exported method of every type linked: the binary was 4 MB larger with
// it, and every process, each hook and read among them, started about a
// millisecond slower.
func TestDeadCodeEliminationStaysOn(t *testing.T) {
	if testing.Short() {
		t.Skip("links freshctx once more and a program that fails the check (-short)")
	}
	marked, edges := reflectMethodCallers(t, "", testbin.Main)
	if edges == 0 {
		t.Fatal("the linker printed no dependency: the check below would prove nothing")
	}
	if len(marked) > 0 {
		t.Errorf("the linker keeps every exported method: these symbols call reflect's methods by a name known only at run time "+
			"(`go build -ldflags=-dumpdep ./cmd/freshctx` prints who reaches them):\n%s", strings.Join(marked, "\n"))
	}

	// The check finds the call when it is there: a program executing a
	// template, as cobra's version template did.
	dir := testbin.Program(t, "tmpl", "package main\n\nimport (\n\t\"os\"\n\t\"text/template\"\n)\n\n"+
		"func main() { template.Must(template.New(\"v\").Parse(\"{{.}}\\n\")).Execute(os.Stdout, 1) }\n")
	if marked, _ := reflectMethodCallers(t, dir, "."); len(marked) == 0 {
		t.Error("a program executing a template: no dependency marked <ReflectMethod>; the linker's dump changed and the check above proves nothing")
	}
}

// reflectMethodCallers links pkg, from dir when not "", asking the linker
// for its dependency graph (lines "from -> to", a symbol marked
// " <ReflectMethod>" when it calls reflect's methods by a name known at
// run time), and returns the marked symbols and how many edges it printed.
func reflectMethodCallers(t *testing.T, dir, pkg string) (marked []string, edges int) {
	t.Helper()
	c := testbin.Command(os.DevNull, pkg, "-ldflags=-dumpdep")
	c.Dir = dir
	var dump, out bytes.Buffer
	c.Stdout, c.Stderr = &out, &dump
	if err := c.Run(); err != nil {
		t.Fatalf("go build -ldflags=-dumpdep %s: %v\n%s%s", pkg, err, out.Bytes(), dump.Bytes()[max(0, dump.Len()-2000):])
	}
	seen := map[string]bool{}
	for line := range strings.Lines(dump.String()) {
		from, to, ok := strings.Cut(strings.TrimSpace(line), " -> ")
		if !ok {
			continue
		}
		edges++
		for _, sym := range []string{from, to} {
			if name, ok := strings.CutSuffix(sym, " <ReflectMethod>"); ok && !seen[name] {
				seen[name] = true
				marked = append(marked, name)
			}
		}
	}
	return marked, edges
}
