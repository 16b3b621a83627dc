//go:build !unix

package integrate

import (
	"io/fs"
	"os"
)

// keepOwner does nothing where files have no unix owner.
func keepOwner(*os.File, fs.FileInfo) {}
