package registry

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/freshctx/freshctx/internal/workspace"
)

// Input is a file as a summary's writer may be given it: its bytes, or
// why it may not be given them.
type Input struct {
	Path    string // root-relative
	Lang    string
	Content []byte
	// Skip says why the file is not to be sent anywhere: skipped by the
	// registry (binary, lockfile, vendor, generated), sensitive, larger
	// than the limit, not a regular file. Content is nil then.
	Skip string
}

// SummaryInput reads a file for a summary written elsewhere (a model's):
// never a file the registry skips, a sensitive one (by name or content),
// or one over maxSize bytes.
func (s *Service) SummaryInput(path string, maxSize int64) (Input, error) {
	rel, err := s.WS.Rel(path, s.Cwd)
	if err != nil {
		return Input{}, err
	}
	in := Input{Path: rel, Lang: language(rel)}
	if in.Skip = skipByName(rel); in.Skip != "" {
		return in, nil
	}
	abs, err := s.WS.Resolve(rel)
	if errors.Is(err, workspace.ErrOutsideRoot) {
		in.Skip = SkipOutsideRoot
		return in, nil
	} else if err != nil {
		return Input{}, fmt.Errorf("%s: %w", rel, withoutPath(err))
	}
	if why := s.WS.SensitiveFile(rel, abs, nil); why != "" {
		in.Skip = "sensitive: " + why
		return in, nil
	}
	f, err := os.Open(abs)
	if err != nil {
		return Input{}, fmt.Errorf("%s: %w", rel, withoutPath(err))
	}
	defer f.Close()
	info, err := f.Stat()
	switch {
	case err != nil:
		return Input{}, fmt.Errorf("%s: %w", rel, withoutPath(err))
	case !info.Mode().IsRegular():
		in.Skip = "not a regular file"
		return in, nil
	case info.Size() > maxSize:
		in.Skip = fmt.Sprintf("%d bytes, over the limit of %d", info.Size(), maxSize)
		return in, nil
	}
	content, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return Input{}, fmt.Errorf("%s: %w", rel, withoutPath(err))
	}
	switch {
	case int64(len(content)) > maxSize:
		in.Skip = fmt.Sprintf("grew over the limit of %d bytes while read", maxSize)
	case sniff(content[:min(len(content), 8000)]) != "":
		in.Skip = sniff(content[:min(len(content), 8000)])
	case workspace.SensitiveContent(content) != "":
		in.Skip = "sensitive: holds " + workspace.SensitiveContent(content)
	default:
		in.Content = content
	}
	return in, nil
}
