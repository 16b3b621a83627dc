// Package testrace tells a test whether its binary was built with -race,
// and skips under the detector the tests it has nothing to watch in.
//
// The race detector watches the goroutines of the test binary. A test
// whose work happens in other processes (an agent, a freshctx binary it
// started), or a property test that drives one goroutine through
// thousands of cases, gains nothing from it and costs several times as
// much; such tests run without -race (`go test ./...`) and skip in the
// race run (`go test -race -short ./...`), which then covers the tests
// where goroutines meet.
package testrace

import "testing"

// Skip skips t when the race detector is on, saying why: what the test
// exercises that the detector does not watch.
func Skip(t testing.TB, why string) {
	t.Helper()
	if Enabled {
		t.Skipf("%s: the race detector watches nothing here; runs without -race", why)
	}
}
