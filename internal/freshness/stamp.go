package freshness

import (
	"time"

	"github.com/freshctx/freshctx/internal/digest"
)

// FileStamp is what one file looked like when an item was captured.
type FileStamp struct {
	// Path is root-relative and slash-separated.
	Path    string
	Existed bool
	IsDir   bool
	Size    int64
	ModTime int64 // unix ns
	// Digest is the SHA-256 of the content; zero when the file could not be
	// read or was over the hash size limit.
	Digest digest.Digest
	// GitClean is true when the file was tracked and unmodified at capture.
	GitClean bool
}

// GitStamp is the repository state at capture. IsRepo is false outside git.
type GitStamp struct {
	IsRepo bool
	RepoID string
	Branch string
	Head   string
	Tree   string
	Dirty  bool
}

// Stamp is everything an item depended on.
type Stamp struct {
	At    time.Time
	Git   GitStamp
	Files []FileStamp
}

// FileResult is the verdict on one file.
type FileResult struct {
	Path   string `json:"path"`
	Label  Label  `json:"label"`
	Reason string `json:"reason"`
}

// Result is the verdict on a stamp: the worst file label and every file's.
type Result struct {
	Label Label        `json:"label"`
	Files []FileResult `json:"files"`
}
