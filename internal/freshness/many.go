package freshness

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/freshctx/freshctx/internal/sha"
)

// SniffSize is how much of a file a DigestMany Sniff function sees.
const SniffSize = 8 << 10

// ErrTooLarge is the error of a file over a size limit.
var ErrTooLarge = errors.New("over the size limit")

// ErrOutsideRoot is the error of a path that resolves outside the root.
var ErrOutsideRoot = errors.New("resolves outside the workspace root")

// FileDigest is one file as DigestMany saw it.
type FileDigest struct {
	Path string
	// FP is the fingerprint the digest goes with: taken before hashing and
	// found equal after it.
	FP Fingerprint
	// Recorded is when FP was taken (unix ns), for Fingerprint.Settled.
	Recorded int64
	Digest   sha.Sum
	// Tag is what DigestOptions.Sniff said of the file's head.
	Tag string
	// Err is why the file has no digest: it is gone (os.ErrNotExist), not a
	// regular file, over MaxSize (ErrTooLarge), outside the root
	// (ErrOutsideRoot), kept changing, or could not be read.
	Err error

	entry *CacheEntry // a new stat-cache entry to keep
}

// Info is the stat of what the path reaches.
func (d FileDigest) Info() FileInfo { return d.FP.File }

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

// DigestMany fingerprints and hashes many root-relative files in parallel,
// using the stat cache (a file whose settled fingerprint is unchanged is not
// read) and recording new entries in it for Flush. Results are in the order
// of rels.
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
	for range hashTries {
		fd.Recorded = s.opt.Now().UnixNano()
		fd.FP, fd.Err = s.Fingerprint(rel)
		info := fd.FP.File
		switch {
		case fd.Err != nil:
			return fd
		case !info.Mode.IsRegular():
			fd.Err = notRegular(info.Mode)
			return fd
		case info.Size > opt.MaxSize:
			fd.Err = ErrTooLarge
			return fd
		case !s.inside(rel, fd.FP):
			fd.Err = ErrOutsideRoot
			return fd
		}
		cached, trusted := s.cache[rel]
		trusted = trusted && cached.Trusted(fd.FP, s.opt.RacyWindow)
		if trusted && opt.Sniff == nil {
			fd.Digest = cached.Digest
			return fd
		}
		settled, err := s.readOne(&fd, opt, buf, trusted, cached)
		if err != nil || settled {
			fd.Err = err
			return fd
		}
	}
	fd.Digest, fd.entry, fd.Err = sha.Sum{}, nil, errUnsettled
	return fd
}

// readOne sniffs and (unless trusted) hashes the file, then fingerprints it
// again; settled is false when the file moved meanwhile.
func (s *Snapshot) readOne(fd *FileDigest, opt DigestOptions, buf []byte, trusted bool, cached CacheEntry) (bool, error) {
	f, err := s.opt.FS.Open(s.ws.Abs(fd.Path))
	if err != nil {
		return true, err
	}
	defer f.Close()
	n, err := io.ReadFull(f, buf[:min(SniffSize, len(buf))])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return true, err
	}
	if opt.Sniff != nil {
		fd.Tag = opt.Sniff(buf[:n])
	}
	if trusted {
		fd.Digest = cached.Digest
		return true, nil
	}
	d, size, err := sha.Reader(io.MultiReader(bytes.NewReader(buf[:n]), f))
	if err != nil {
		return true, err
	}
	after, err := s.Fingerprint(fd.Path)
	if err != nil {
		return true, err
	}
	if size != fd.FP.File.Size || after != fd.FP {
		return false, nil
	}
	fd.Digest = d
	fd.entry = &CacheEntry{FP: fd.FP, Digest: d, Recorded: fd.Recorded}
	return true, nil
}
