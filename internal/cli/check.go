package cli

import "fmt"

// CheckArgs reports whether args (without the program's name) name a
// command freshctx has, with flags it takes, without running anything:
// the docs' examples are held to the binary by it.
func CheckArgs(args []string) error {
	root := newRootCmd(&app{}, nil)
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if cmd == root && len(rest) > 0 {
		return fmt.Errorf("unknown command %q", rest[0])
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return fmt.Errorf("%s: %w", cmd.CommandPath(), err)
	}
	if cmd.Args != nil {
		if err := cmd.Args(cmd, cmd.Flags().Args()); err != nil {
			return fmt.Errorf("%s: %w", cmd.CommandPath(), err)
		}
	}
	return nil
}
