package cli

import (
	"bytes"
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
