package testgit

import "testing"

// TestNoBackgroundWork: every repository a test makes has git's automatic
// gc and maintenance off, as git itself reads its config.
func TestNoBackgroundWork(t *testing.T) {
	work := New(t)
	work.Commit("init")
	bare := Bare(t)
	clone := Clone(t, work.Dir)
	for name, r := range map[string]*Repo{"init": work, "bare": bare, "clone": clone} {
		if got := r.Git("config", "--local", "gc.auto"); got != "0" {
			t.Errorf("%s: gc.auto = %q, want 0", name, got)
		}
		if got := r.Git("config", "--local", "--type=bool", "maintenance.auto"); got != "false" {
			t.Errorf("%s: maintenance.auto = %q, want false", name, got)
		}
	}
}
