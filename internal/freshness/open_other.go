//go:build !unix

package freshness

import "os"

// OpenFolder opens the folder at abs to read its entries.
func OpenFolder(abs string) (*os.File, error) { return os.Open(abs) }

func openFile(name string) (*os.File, error) { return os.Open(name) }
