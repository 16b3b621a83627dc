package cli

import (
	"bytes"
	"os"
	"testing"

	"github.com/spf13/cobra"
)

// TestPerCallCommandsAreTheWholeTrees: a command of perCall built alone is
// the one of the whole tree: the same help, flags and usage errors.
func TestPerCallCommandsAreTheWholeTrees(t *testing.T) {
	for name := range perCall {
		for _, args := range [][]string{{name, "--help"}, {name, "--no-such-flag"}, {name, "-h", "--json"}} {
			alone := execute(t, newRootCmd(&app{io: IO{Env: os.Environ()}}, args), args)
			whole := execute(t, newRootCmd(&app{io: IO{Env: os.Environ()}}, nil), args)
			if alone != whole {
				t.Errorf("%q alone:\n%s\nin the whole tree:\n%s", args, alone, whole)
			}
		}
		if n := len(newRootCmd(&app{}, []string{name}).Commands()); n != 1 {
			t.Errorf("%s: the root holds %d commands, want it alone", name, n)
		}
	}
	if n := len(newRootCmd(&app{}, []string{"show"}).Commands()); n < 10 {
		t.Errorf("show: the root holds %d commands, want the whole tree", n)
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
