package testbin

import (
	"os"
	"path/filepath"
	"testing"
)

// runFunc is a TestingM whose Run is a function.
type runFunc func() int

func (f runFunc) Run() int { return f() }

// TestRunBuildsOnceAndRemovesTheBuild: under Run every Build returns the
// one binary, which is gone when Run returns; outside Run, Build builds
// into the test's own directory again.
func TestRunBuildsOnceAndRemovesTheBuild(t *testing.T) {
	var first, second string
	code := Run(runFunc(func() int {
		first, second = Build(t), Build(t)
		return 7
	}))
	if code != 7 {
		t.Fatalf("Run returned %d, want the tests' 7", code)
	}
	if first != second {
		t.Fatalf("two builds under Run: %s and %s", first, second)
	}
	if _, err := os.Stat(filepath.Dir(first)); !os.IsNotExist(err) {
		t.Fatalf("the build's directory outlived Run: %v", err)
	}
	if sharedBuild != nil {
		t.Fatal("Build still shares after Run")
	}
	own := Build(t)
	if filepath.Dir(first) == filepath.Dir(own) {
		t.Fatalf("Build after Run returned %s, in the removed shared directory", own)
	}
	if _, err := os.Stat(own); err != nil {
		t.Fatalf("Build after Run: %v", err)
	}
}
