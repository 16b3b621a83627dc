package records

import (
	"os"
	"testing"
)

// TestMain poisons the text of every batch of lines given back, so that
// in every test of the package a text kept past its batch, a copy the
// pipeline failed to make, shows in what was kept (TestNoTextOutlivesItsBatch
// looks for it on purpose).
func TestMain(m *testing.M) {
	poisonGivenBack = true
	os.Exit(m.Run())
}
