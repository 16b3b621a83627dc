package cli

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestCommandsBuiltAloneAreTheWholeTrees: a command built alone, as a
// process that runs it builds it, is the one of the whole tree: the same
// help, flags and usage errors, down to every subcommand.
func TestCommandsBuiltAloneAreTheWholeTrees(t *testing.T) {
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			p := append(slices.Clone(path), sub.Name())
			paths = append(paths, p)
			walk(sub, p)
		}
	}
	walk(newRootCmd(&app{}, nil), nil)
	if len(paths) < 2*len(commands) {
		t.Fatalf("the whole tree holds %d commands, want every command and its subcommands", len(paths))
	}
	for _, path := range paths {
		for _, tail := range [][]string{{"--help"}, {"--no-such-flag"}, {"-h", "--json"}} {
			args := append(slices.Clone(path), tail...)
			alone := execute(t, newRootCmd(&app{io: IO{Env: os.Environ()}}, args), args)
			whole := execute(t, newRootCmd(&app{io: IO{Env: os.Environ()}}, nil), args)
			if alone != whole {
				t.Errorf("%q alone:\n%s\nin the whole tree:\n%s", args, alone, whole)
			}
		}
	}
	for name, build := range commands {
		if got := build(&app{}).Name(); got != name {
			t.Errorf("commands[%q] builds %q", name, got)
		}
		if n := len(newRootCmd(&app{}, []string{name}).Commands()); n != 1 {
			t.Errorf("%s: the root holds %d commands, want it alone", name, n)
		}
	}
	for _, args := range [][]string{{"help", "show"}, {"--json", "show"}, {"shwo"}, {"--help"}} {
		if n := len(newRootCmd(&app{}, args).Commands()); n != len(commands) {
			t.Errorf("%q: the root holds %d commands, want the whole tree", args, n)
		}
	}
	if out := execute(t, newRootCmd(&app{}, []string{"shwo"}), []string{"shwo"}); !strings.Contains(out, "show") {
		t.Errorf("a mistyped command is not shown the one meant:\n%s", out)
	}
}

// execute runs cmd on args, returning what it printed and its error.
func execute(t *testing.T, cmd *cobra.Command, args []string) string {
	t.Helper()
	var out bytes.Buffer
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	if err := cmd.Execute(); err != nil {
		out.WriteString("error: " + err.Error())
	}
	return out.String()
}

// TestRenderWritesOutInFewWritesAndInOrder: what a command prints on Out
// reaches it in a few writes, not one a line; a line on Err comes after
// the Out lines printed before it and before those printed after, where
// both go to one place (2>&1); content is in its place among them; and a
// control sequence is still cleaned from Out.
func TestRenderWritesOutInFewWritesAndInOrder(t *testing.T) {
	var both countingWriter
	a := &app{io: IO{Out: &both, Err: &both}}
	err := a.render(nil, func() error {
		for i := range 2000 {
			fmt.Fprintf(a.io.Out, "line %d\x1b[2J\n", i)
		}
		fmt.Fprintln(a.io.Err, "a warning")
		fmt.Fprint(a.io.Content(), "exact\x1b[1m\n")
		fmt.Fprintln(a.io.Out, "the last line")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := both.String()
	var want strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&want, "line %d\n", i)
	}
	want.WriteString("a warning\nexact\x1b[1m\nthe last line\n")
	if got != want.String() {
		t.Errorf("printed (%d bytes) differs from the lines in order (%d bytes); its end: %q", len(got), want.Len(), got[max(0, len(got)-80):])
	}
	if most := len(got)/renderBuffer + 4; both.writes > most {
		t.Errorf("%d writes for %d bytes, want at most %d", both.writes, len(got), most)
	}
}

// countingWriter is a bytes.Buffer that counts the writes it is given.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}
