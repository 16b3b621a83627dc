package freshness

import (
	"fmt"
	"time"

	"github.com/freshctx/freshctx/internal/sha"
)

// Note is what a stamp knows about a file beyond its fingerprint and digest:
// reasons its content cannot be vouched for.
type Note uint8

// Notes, stored as a bit set.
const (
	// NoteChangedDuringRun: the file's mtime or ctime is after the command
	// started, so nobody knows which content its output saw.
	NoteChangedDuringRun Note = 1 << iota
	// NoteOutsideRoot: the path resolves (through a symlink) outside the
	// workspace root; it is not read.
	NoteOutsideRoot
	// NoteUnsettled: the file kept changing while it was being hashed.
	NoteUnsettled
	// NoteNotStamped: the item named more files than are stamped; this one
	// was not.
	NoteNotStamped
	// NoteLinkedFolder: a directory holding a symlink to a folder outside
	// it, whose files its digest does not hold.
	NoteLinkedFolder
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
	Digest sha.Sum
	// FP is freshctx's fingerprint of the path, taken with the digest (the
	// file was stat'ed again after hashing and had not moved).
	FP    Fingerprint
	Notes Note
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
	// At is when the item's production started (a command's start); a file
	// modified after it is stamped NoteChangedDuringRun.
	At time.Time
	// Stamped is when the fingerprints were taken, for Fingerprint.Settled;
	// zero means At.
	Stamped time.Time
	Git     GitStamp
	Files   []FileStamp
}

func (st Stamp) stampedNS() int64 {
	if st.Stamped.IsZero() {
		return st.At.UnixNano()
	}
	return st.Stamped.UnixNano()
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
	// SupersededBy is a later record of the same command in the same
	// workspace and folder (records only; 0 when none).
	SupersededBy int64 `json:"superseded_by,omitempty"`
	// InputsChanged is what changed in the record's input scope since it
	// was made (records only). The label keeps its meaning: it speaks of
	// the files the item named.
	InputsChanged *InputsChanged `json:"inputs_changed,omitempty"`
}

// InputsChanged is what changed in an item's input scope since it was made.
type InputsChanged struct {
	Count int      `json:"count"`
	Paths []string `json:"paths"` // the first few, root-relative
	// Scope is the globs the item's inputs were taken to be.
	Scope []string `json:"scope"`
	// Complete is true only where no changed input can have been missed:
	// the scope was given (--inputs), and the search read all of it and
	// saw no folder of it change while the command ran. Count is otherwise
	// a lower bound.
	Complete bool `json:"complete"`
	// Guessed says the scope was chosen from the command, not given: the
	// command may read files outside it (a test opening a path it builds
	// at run time).
	Guessed bool `json:"guessed"`
	// Unchecked says why the search itself is not complete, if it is not.
	Unchecked string `json:"unchecked,omitempty"`
}

// Unprovable says why no later check can find f fresh, if none can: it
// links outside the root, was changing while it was stamped, or is a
// directory whose entries were not all compared. A caller that keeps
// something on f's account can warn that it will never be trusted.
func (f FileStamp) Unprovable() (string, bool) {
	if !f.Existed {
		return "", false
	}
	if f.IsDir && f.Notes&NoteNotStamped != 0 {
		return fmt.Sprintf("holds more than %d entries: not compared", MaxDirEntries), true
	}
	if why, ok := noted(f.Notes &^ NoteChangedDuringRun); ok {
		return why, true
	}
	if f.IsDir && f.Digest.IsZero() {
		return "the files in it could not all be read", true
	}
	return "", false
}
