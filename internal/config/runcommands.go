package config

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/freshctx/freshctx/internal/store"
)

// A store keeps hooks.run_commands in a file beside it too, so that an
// agent's Bash hook tells a command it will not route without opening the
// store (most commands an agent runs are not routed). The store is the
// truth: the file is written whenever the setting is read from the store
// or set, and a hook that finds no file reads the store.

// mirrorPath is the file beside the store that mirrors hooks.run_commands.
func mirrorPath(storePath string) string { return storePath + "-run-commands" }

// MirrorHeader opens every mirror freshctx writes: a file of that name
// without it is someone else's (a store given by --store may sit beside
// anything) and is neither read, replaced nor removed. The pi extension
// reads mirrors too (integrate's TestPiReadsTheMirrorAsWritten).
const MirrorHeader = "# freshctx: hooks.run_commands of the store beside this file; rewritten as the setting changes\n"

// CachedRunCommands is hooks.run_commands as last mirrored beside the store
// at storePath; false when there is no mirror to go by.
func CachedRunCommands(storePath string) ([]string, bool) {
	b, err := os.ReadFile(mirrorPath(storePath))
	if err != nil {
		return nil, false
	}
	value, ours := strings.CutPrefix(string(b), MirrorHeader)
	if !ours {
		return nil, false
	}
	return splitCommands(value), true
}

// RunCommands is hooks.run_commands as a list, read from the store; the
// mirror beside it is brought up to date.
func RunCommands(ctx context.Context, s *store.Store) ([]string, error) {
	v, err := Get(ctx, s, "hooks.run_commands")
	if err != nil {
		return nil, err
	}
	cmds := splitCommands(v.Value)
	if cached, ok := CachedRunCommands(s.Path()); !ok || !slices.Equal(cached, cmds) {
		keepMirror(s.Path(), v.Value)
	}
	return cmds, nil
}

// keepMirror writes the mirror by rename, so a hook reads the old list or
// the new one; a store that cannot be written beside keeps none (hooks read
// the store), and a file of the mirror's name that is not one stays.
func keepMirror(storePath, value string) {
	if !mirrorOrNone(storePath) {
		return
	}
	dir := filepath.Dir(storePath)
	f, err := os.CreateTemp(dir, filepath.Base(mirrorPath(storePath))+".tmp-*")
	if err != nil {
		return
	}
	_, werr := f.WriteString(MirrorHeader + value)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), mirrorPath(storePath)) != nil {
		os.Remove(f.Name())
	}
}

// forgetMirror removes the mirror (the setting is about to change); a file
// of its name that is not one stays.
func forgetMirror(storePath string) error {
	if !mirrorOrNone(storePath) {
		return nil
	}
	if err := os.Remove(mirrorPath(storePath)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// mirrorOrNone reports whether the mirror's path holds a mirror freshctx
// wrote, or nothing.
func mirrorOrNone(storePath string) bool {
	f, err := os.Open(mirrorPath(storePath))
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(MirrorHeader))
	n, _ := io.ReadFull(f, head)
	return string(head[:n]) == MirrorHeader
}
