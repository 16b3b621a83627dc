package freshness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/freshctx/freshctx/internal/digest"
)

// SniffSize is how much of a file a DigestMany Sniff function sees.
const SniffSize = 8 << 10

// ErrTooLarge is the error of a file over a size limit.
var ErrTooLarge = errors.New("over the size limit")

// FileDigest is one file as DigestMany saw it.
type FileDigest struct {
	Path   string
	Info   FileInfo
	Digest digest.Digest
	// Tag is what DigestOptions.Sniff said of the file's head.
	Tag string
	// Err is why the file has no digest: it is gone (os.ErrNotExist), not a
	// regular file, over MaxSize (ErrTooLarge), or could not be read.
	Err error

	entry *CacheEntry // a new stat-cache entry to keep
}

// DigestOptions tune DigestMany.
type DigestOptions struct {
	// Workers hash in parallel; 0 means GOMAXPROCS.
	Workers int
	// MaxSize: larger files are not read (Err ErrTooLarge); 0 means the
	// snapshot's hash size limit.
	MaxSize int64
	// Sniff, when set, is given the first SniffSize bytes of every file
	// (read even when the stat cache spares the hashing) and returns a tag.
	Sniff func(head []byte) string
	// Done, when set, counts files as they finish, for progress reports.
	Done *atomic.Int64
}

// DigestMany stats and hashes many root-relative files in parallel, using
// the stat cache (an unchanged file is not read) and recording new entries in
// it for Flush. Results are in the order of rels.
func (s *Snapshot) DigestMany(ctx context.Context, rels []string, opt DigestOptions) ([]FileDigest, error) {
	if err := s.loadCache(ctx, rels); err != nil {
		return nil, err
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if opt.MaxSize <= 0 || opt.MaxSize > s.opt.MaxHashSize {
		opt.MaxSize = s.opt.MaxHashSize
	}
	out := make([]FileDigest, len(rels))
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range opt.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 64<<10)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(rels) || ctx.Err() != nil {
					return
				}
				out[i] = s.digestOne(rels[i], opt, buf)
				if opt.Done != nil {
					opt.Done.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		if e := out[i].entry; e != nil {
			s.cache[out[i].Path] = *e
			s.dirty[out[i].Path] = *e
			out[i].entry = nil
		}
	}
	return out, nil
}

// digestOne runs on a worker: it only reads the snapshot's cache map, which
// nothing writes while workers run.
func (s *Snapshot) digestOne(rel string, opt DigestOptions, buf []byte) FileDigest {
	fd := FileDigest{Path: rel}
	fd.Info, fd.Err = s.opt.FS.Stat(s.ws.Abs(rel))
	switch {
	case fd.Err != nil:
		return fd
	case !fd.Info.Mode.IsRegular():
		fd.Err = fmt.Errorf("not a regular file (%v)", fd.Info.Mode.Type())
		return fd
	case fd.Info.Size > opt.MaxSize:
		fd.Err = ErrTooLarge
		return fd
	}
	cached, trusted := s.cache[rel]
	trusted = trusted && cached.Trusted(fd.Info)
	if trusted && opt.Sniff == nil {
		fd.Digest = cached.Digest
		return fd
	}
	f, err := s.opt.FS.Open(s.ws.Abs(rel))
	if err != nil {
		fd.Err = err
		return fd
	}
	defer f.Close()
	n, err := io.ReadFull(f, buf[:min(SniffSize, len(buf))])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		fd.Err = err
		return fd
	}
	if opt.Sniff != nil {
		fd.Tag = opt.Sniff(buf[:n])
	}
	if trusted {
		fd.Digest = cached.Digest
		return fd
	}
	d, size, err := digest.Reader(io.MultiReader(bytes.NewReader(buf[:n]), f))
	if err != nil {
		fd.Err = err
		return fd
	}
	if size != fd.Info.Size {
		fd.Err = fmt.Errorf("changed while being read")
		return fd
	}
	fd.Digest = d
	fd.entry = &CacheEntry{Info: fd.Info, Digest: d, Recorded: s.opt.Now().UnixNano()}
	return fd
}
