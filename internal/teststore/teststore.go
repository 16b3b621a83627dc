// Package teststore opens what feature tests need: a store that is closed
// when the test ends, one on a mount that can be made read-only, and the
// workspace of a directory. Every helper fails the test on error.
package teststore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testfs"
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

// OnAMount opens a new store on a tmpfs of its own (a test that may not
// mount one is skipped). readOnly closes it, remounts the tmpfs read-only
// and opens the store there again, as a store that cannot be written: the
// test fails unless it opens for reading only.
func OnAMount(tb testing.TB, opt store.Options) (st *store.Store, readOnly func() *store.Store) {
	tb.Helper()
	dir := testfs.Tmpfs(tb, "16m")
	p := filepath.Join(dir, "freshctx.db")
	st, err := store.Open(context.Background(), p, opt)
	if err != nil {
		tb.Fatal(err)
	}
	return st, func() *store.Store {
		tb.Helper()
		if err := st.Close(); err != nil {
			tb.Fatal(err)
		}
		testfs.ReadOnly(tb, dir)
		opt.ReadOnly = true
		ro := Open(tb, p, opt)
		if !ro.ReadOnly() {
			tb.Fatal("the store on a read-only mount was opened for writing")
		}
		return ro
	}
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
