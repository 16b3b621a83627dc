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
	Action string `json:"action"` // created, updated, unchanged, or "kept: why" (left as it was)
	// Content is the file's new content.
	Content string `json:"-"`
}

// loadJSON reads a JSON object file; a missing file is an empty object. A
// file that is not a JSON object is an error: init never overwrites what
// it cannot read.
func loadJSON(path string) (map[string]any, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return map[string]any{}, true, nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, true, fmt.Errorf("%s is not a JSON object (%v); fix it or move it aside", path, err)
	}
	return m, true, nil
}

// object returns m[key] as an object, creating it; an existing non-object
// value is an error.
func object(m map[string]any, key, file string) (map[string]any, error) {
	v, ok := m[key]
	if !ok || v == nil {
		o := map[string]any{}
		m[key] = o
		return o, nil
	}
	o, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: %q is not an object", file, key)
	}
	return o, nil
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

func marshal(m map[string]any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Apply writes the changes (created and updated ones).
func Apply(changes []Change) error {
	for _, c := range changes {
		if c.Action != "created" && c.Action != "updated" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(c.Path, []byte(c.Content), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", c.Path, err)
		}
	}
	return nil
}
