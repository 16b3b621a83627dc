package records

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Shared is a record as a team store takes it: what the model reads, the
// whole output as it was stored (redacted), and the SHA-256 of each file
// it named. Nothing machine-local (fingerprints, inodes, mtimes) is in it.
type Shared struct {
	ID        int64
	Command   string
	Label     string
	ExitCode  *int
	Intent    string
	Summary   string
	Raw       []byte // stdout then stderr; nil when over the size given
	Files     []SharedFile
	RepoID    string
	Head      string
	Branch    string
	Dirty     bool
	CreatedAt time.Time
}

// SharedFile is one file a record named, as the work tree held it then.
type SharedFile struct {
	Path    string
	SHA256  string // "" when it was not read (too large, changed during the run, outside the root)
	Size    int64
	Existed bool
}

// Shared loads record id as a team store takes it; the raw output is left
// out when it is over maxRaw bytes.
func (s *Service) Shared(ctx context.Context, id int64, maxRaw int64) (*Shared, error) {
	r, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	out := &Shared{ID: r.ID, Command: r.Command, Label: r.Label, ExitCode: r.ExitCode, Intent: r.Intent,
		Summary: r.Digest, RepoID: r.stamp.Git.RepoID, Head: r.stamp.Git.Head, Branch: r.stamp.Git.Branch,
		Dirty: r.stamp.Git.Dirty, CreatedAt: r.CreatedAt}
	for _, f := range r.stamp.Files {
		sf := SharedFile{Path: f.Path, Size: f.Size, Existed: f.Existed}
		if !f.Digest.IsZero() && f.Notes == 0 && !f.IsDir {
			sf.SHA256 = f.Digest.String()
		}
		out.Files = append(out.Files, sf)
	}
	if r.StdoutBytes+r.StderrBytes > maxRaw {
		return out, nil
	}
	for _, h := range r.blobs {
		rc, err := s.openStream(h)
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", id, err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", id, err)
		}
		out.Raw = append(out.Raw, b...)
	}
	if out.Raw == nil {
		out.Raw = []byte{}
	}
	return out, nil
}
