package compress

import (
	"path/filepath"
	"strings"
)

// frames decides which stack frames to keep: the workspace's own, at most
// perTrace of them per trace, each distinct frame once per output. Frames of
// the runtime, the standard library and dependencies are noise.
type frames struct {
	root     string
	perTrace int
	kept     int
	seen     map[string]bool
}

func newFrames(root string, perTrace int) *frames {
	return &frames{root: root, perTrace: perTrace, seen: map[string]bool{}}
}

// newTrace starts counting a new trace.
func (f *frames) newTrace() { f.kept = 0 }

// judge classifies a frame naming path; key identifies it for de-duplication.
func (f *frames) judge(path, key string, foreign bool) Class {
	if foreign || !f.inWorkspace(path) {
		return Noise
	}
	if f.seen[key] || f.kept >= f.perTrace {
		return Noise
	}
	f.seen[key] = true
	f.kept++
	return Ref
}

// inWorkspace reports whether a frame's file is the workspace's own: a
// relative path, or an absolute one under the root.
func (f *frames) inWorkspace(path string) bool {
	if path == "" {
		return false
	}
	if !filepath.IsAbs(path) {
		return !strings.Contains(path, "node_modules") && !strings.HasPrefix(path, "node:")
	}
	if f.root == "" {
		return false
	}
	rel, err := filepath.Rel(f.root, path)
	return err == nil && !strings.HasPrefix(rel, "..") &&
		!strings.Contains(rel, "node_modules") && !strings.Contains(rel, "site-packages")
}
