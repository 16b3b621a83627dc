package integrate

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// piExtension is the pi extension init writes (pi/freshctx.ts): pi loads
// every .ts file of its extensions folders at start.
//
//go:embed pi/freshctx.ts
var piExtension string

// piMarker is how init knows a file for its own, edited or not.
const piMarker = "written by `freshctx init pi`"

// PiExtensionFile is the extension's file in a pi extensions folder.
const PiExtensionFile = "freshctx.ts"

// PiProjectDir is the project's pi extensions folder, PiUserDir the
// user's (every project).
func PiProjectDir(root string) string { return filepath.Join(root, ".pi", "extensions") }
func PiUserDir(home string) string    { return filepath.Join(home, ".pi", "agent", "extensions") }

// Pi is the change that installs the extension in dir: created, unchanged
// when it is there as freshctx writes it, kept (and said) when the file is
// someone else's or was edited.
func Pi(dir string) ([]Change, error) {
	path := filepath.Join(dir, PiExtensionFile)
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return []Change{{Path: path, Action: "created", Content: piExtension}}, nil
	case err != nil:
		return nil, err
	case string(old) == piExtension:
		return []Change{{Path: path, Action: "unchanged", Content: piExtension}}, nil
	case strings.Contains(string(old), piMarker):
		return []Change{{Path: path, Action: "kept: edited since freshctx wrote it (or from another freshctx version); " +
			"delete it and run init pi again for this version's", Content: string(old)}}, nil
	}
	return []Change{{Path: path, Action: "kept: not freshctx's; move it away to install freshctx's", Content: string(old)}}, nil
}

// PiRemove is the change that takes the extension out of dir: removed when
// it is there as freshctx wrote it, kept (and said) when it was edited.
func PiRemove(dir string) ([]Change, error) {
	path := filepath.Join(dir, PiExtensionFile)
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return []Change{{Path: path, Action: "unchanged"}}, nil
	case err != nil:
		return nil, err
	case string(old) != piExtension:
		return []Change{{Path: path, Action: "kept: edited since freshctx wrote it, or not freshctx's; delete it yourself"}}, nil
	}
	return []Change{{Path: path, Action: "removed"}}, nil
}

// removeFile deletes a removed change's file, and the agent's folders it
// leaves empty (.claude, .codex, .cursor, .pi and the folders inside them;
// never one that holds anything, never the project's or the home folder).
func removeFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	for dir := filepath.Dir(path); inAgentDir(dir); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil || strings.HasPrefix(filepath.Base(dir), ".") {
			return nil // not empty (the user's or the agent's own files), or the agent's folder itself
		}
	}
	return nil
}

// inAgentDir reports whether dir is an agent's dot folder or inside one.
func inAgentDir(dir string) bool {
	for _, part := range strings.Split(filepath.ToSlash(dir), "/") {
		switch part {
		case ".claude", ".codex", ".cursor", ".pi":
			return true
		}
	}
	return false
}
