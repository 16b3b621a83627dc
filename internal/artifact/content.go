package artifact

import (
	"bytes"
	"fmt"
	"io"

	"github.com/freshctx/freshctx/internal/sha"
	"github.com/freshctx/freshctx/internal/store"
)

// inlineLimit: contents up to this size live in the artifacts table; larger
// ones go to the blob area. Reading thousands of small slices from the
// table costs one query, not thousands of files.
const inlineLimit = 16 << 10

// content is an artifact's content on its way into the store.
type content struct {
	inline []byte            // set when small
	w      *store.BlobWriter // set when large
	blob   store.Blob
	size   int64
}

func readContent(s *store.Store, r io.Reader) (*content, error) {
	c := &content{inline: []byte{}}
	if r == nil {
		return c, nil
	}
	head, err := io.ReadAll(io.LimitReader(r, inlineLimit+1))
	if err != nil {
		return nil, fmt.Errorf("read content: %w", err)
	}
	if len(head) <= inlineLimit {
		c.inline, c.size = head, int64(len(head))
		return c, nil
	}
	if c.w, err = s.CreateBlob(); err != nil {
		return nil, err
	}
	if _, err := io.Copy(c.w, io.MultiReader(bytes.NewReader(head), r)); err != nil {
		c.w.Discard()
		return nil, fmt.Errorf("read content: %w", err)
	}
	c.inline, c.size = nil, c.w.Size()
	return c, nil
}

// commit moves a large content into the blob area, inside tx.
func (c *content) commit(tx *store.Tx) error {
	if c.w == nil {
		return nil
	}
	var err error
	c.blob, err = tx.CommitBlob(c.w)
	return err
}

func (c *content) blobRef() any {
	if c.w == nil {
		return nil
	}
	return c.blob.Digest.String()
}

func (c *content) discard() {
	if c.w != nil {
		c.w.Discard()
	}
}

// load returns stored content, inline or from its blob.
func (s *Service) load(inline []byte, blob string) (string, error) {
	if blob == "" {
		return string(inline), nil
	}
	d, err := sha.Parse(blob)
	if err != nil {
		return "", err
	}
	rc, err := s.Store.OpenBlob(d)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return "", fmt.Errorf("read artifact content: %w", err)
	}
	return string(b), nil
}
