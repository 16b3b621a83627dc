package cli

import (
	"testing"

	"github.com/freshctx/freshctx/internal/rx"
)

// Expressions compile on first use, so a bad one would only panic when a
// line first needs it. Every package the binary links is linked here too.
func TestEveryExpressionCompiles(t *testing.T) {
	if err := rx.CheckAll(); err != nil {
		t.Fatal(err)
	}
}
