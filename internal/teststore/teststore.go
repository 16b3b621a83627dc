// Package teststore opens what feature tests need: a store that is closed
// when the test ends, and the workspace of a directory. Every helper fails
// the test on error.
package teststore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/workspace"
)

// Open opens the store at path, a new one in a temporary directory when
// path is "".
func Open(tb testing.TB, path string, opt store.Options) *store.Store {
	tb.Helper()
	if path == "" {
		path = filepath.Join(tb.TempDir(), "freshctx.db")
	}
	s, err := store.Open(context.Background(), path, opt)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// Workspace discovers the workspace of dir.
func Workspace(tb testing.TB, dir string) *workspace.Workspace {
	tb.Helper()
	ws, err := workspace.Discover(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return ws
}
