// Command freshctx is a context memory for coding agents that knows whether
// what it remembers is still true. See `freshctx --help`.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/freshctx/freshctx/internal/cli"
)

func main() {
	streams, err := cli.System()
	if err != nil {
		fmt.Fprintf(os.Stderr, "freshctx: %v\n", err)
		os.Exit(1)
	}
	os.Exit(cli.Main(context.Background(), os.Args[1:], streams))
}
