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
	// traceSeen: a frame is a repeat only within its trace (a race report's
	// "Previous write" stack repeats the frames of the access above it).
	traceSeen bool
}

func newFrames(root string, perTrace int) *frames {
	return &frames{root: root, perTrace: perTrace, seen: map[string]bool{}}
}

// newTrace starts counting a new trace.
func (f *frames) newTrace() {
	f.kept = 0
	if f.traceSeen {
		clear(f.seen)
	}
}

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

// inWorkspace reports whether a frame's file is the workspace's own code:
// anything but a library's (node_modules, site-packages, the Go module
// cache and GOROOT, the Rust toolchain and registry, system folders). A
// path outside the root is still the user's code when it is not a
// library's: a script run from elsewhere, a sibling checkout.
func (f *frames) inWorkspace(path string) bool {
	if path == "" || strings.HasPrefix(path, "node:") {
		return false
	}
	if f.root != "" {
		if rel, err := filepath.Rel(f.root, path); err == nil && !strings.HasPrefix(rel, "..") {
			path = rel
		}
	}
	return !libraryPath(path)
}

// libraryDirs mark a path as a library's or the toolchain's.
var libraryDirs = []string{"node_modules/", "site-packages/", "dist-packages/", "/lib/python", "/pkg/mod/",
	"/go/src/", "/rustc/", "/.cargo/registry/", "/.rustup/", "/usr/lib/", "/usr/include/", "/usr/local/lib/",
	"/usr/share/", "/jvm/"}

func libraryPath(path string) bool {
	for _, d := range libraryDirs {
		if strings.Contains(path, d) {
			return true
		}
	}
	return false
}
