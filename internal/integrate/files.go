package integrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Change is one file init writes (or would write, with a dry run).
type Change struct {
	Path   string `json:"path"`
	Action string `json:"action"` // created, updated, removed, unchanged, or "kept: why" (left as it was)
	// Content is the file's new content.
	Content string `json:"-"`
}

// change compares the new content with what is on disk.
func change(path string, content []byte, existed bool) (Change, error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Change{}, err
	}
	c := Change{Path: path, Content: string(content), Action: "updated"}
	switch {
	case !existed && err != nil:
		c.Action = "created"
	case bytes.Equal(old, content):
		c.Action = "unchanged"
	}
	return c, nil
}

// jsonChange is change for a JSON file freshctx edited in place: an edit
// whose result would not parse is refused before anything is written.
func jsonChange(path string, content []byte, existed bool) (Change, error) {
	if !json.Valid(content) {
		return Change{}, fmt.Errorf("%s: freshctx's edit would leave it invalid JSON; nothing was written (edit it by hand, or report this)", path)
	}
	return change(path, content, existed)
}

// Apply writes the changes, all of them or none. Each new content is
// written to a temporary file beside its target (through a symlink, beside
// the file it names, which is what is replaced: the link stays), synced,
// given the target's mode and owner, and renamed over the target only once
// every one is ready: a kill or a full disk at any moment leaves each file
// as it was or as it is meant to be, never cut short. A target that is
// read-only fails them all before any is replaced.
func Apply(changes []Change) error {
	var staged []stagedFile
	defer func() {
		for _, f := range staged {
			os.Remove(f.tmp) // gone already once renamed
		}
	}()
	for _, c := range changes {
		if c.Action != "created" && c.Action != "updated" {
			continue
		}
		f, err := stage(c)
		if err != nil {
			return err
		}
		staged = append(staged, f)
	}
	for i, f := range staged {
		if err := os.Rename(f.tmp, f.target); err != nil {
			restore(staged[:i])
			return fmt.Errorf("write %s: %w (no file was changed)", f.path, err)
		}
		syncDir(filepath.Dir(f.target))
	}
	for _, c := range changes {
		if c.Action == "removed" {
			if err := removeFile(c.Path); err != nil {
				return err
			}
		}
	}
	return nil
}

// stagedFile is a change written beside its target, not yet in place.
type stagedFile struct {
	path, target, tmp string
	old               []byte // the target's content, nil when there was none
	existed           bool
	mode              fs.FileMode
}

// writeTemp writes a staged file's content; a variable so that tests can
// make it fail as a full disk does.
var writeTemp = func(f *os.File, b []byte) error {
	_, err := f.Write(b)
	return err
}

// stage writes c's content beside its target.
func stage(c Change) (stagedFile, error) {
	f := stagedFile{path: c.Path, target: c.Path, mode: 0o644}
	if real, err := filepath.EvalSymlinks(c.Path); err == nil {
		f.target = real
	}
	info, err := os.Stat(f.target)
	switch {
	case err == nil:
		if info.Mode().Perm()&0o200 == 0 {
			return f, fmt.Errorf("%s is read-only: nothing was written (make it writable, or add freshctx by hand)", c.Path)
		}
		f.existed, f.mode = true, info.Mode().Perm()
		if f.old, err = os.ReadFile(f.target); err != nil {
			return f, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return f, err
	}
	dir := filepath.Dir(f.target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return f, err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(f.target)+".freshctx-*")
	if err != nil {
		return f, fmt.Errorf("write %s: %w (nothing was written)", c.Path, err)
	}
	f.tmp = tmp.Name()
	err = writeTemp(tmp, []byte(c.Content))
	if err == nil {
		err = tmp.Sync()
	}
	if err == nil {
		err = tmp.Chmod(f.mode)
	}
	if err == nil && f.existed {
		keepOwner(tmp, info)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.tmp)
		return f, fmt.Errorf("write %s: %w (nothing was written)", c.Path, err)
	}
	return f, nil
}

// restore puts back the files already replaced when a later one could not
// be: their old content, written the same way; a file that was not there
// is removed.
func restore(done []stagedFile) {
	for _, f := range done {
		if !f.existed {
			os.Remove(f.target)
			continue
		}
		back, err := stage(Change{Path: f.target, Content: string(f.old), Action: "updated"})
		if err == nil {
			if os.Rename(back.tmp, back.target) != nil {
				os.Remove(back.tmp)
			}
		}
	}
}

// syncDir makes a rename in dir durable, where the system allows.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
