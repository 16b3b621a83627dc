package artifact

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
)

// SliceInput is one slice of a batch put.
type SliceInput struct {
	Name    string   `json:"slice"`
	Deps    []string `json:"deps"`
	Content string   `json:"content"`
}

// PutSlicesResult is the provenance recorded for a batch of slices.
type PutSlicesResult struct {
	Repo       string    `json:"repo"`
	Ref        string    `json:"ref"`
	Type       string    `json:"type"`
	Key        string    `json:"key"`
	Commit     string    `json:"commit"`
	Tree       string    `json:"tree"`
	Slices     int       `json:"slices"`
	Deps       int       `json:"deps"` // distinct files over all slices
	TTLSeconds int64     `json:"ttl_seconds"`
	Bytes      int64     `json:"bytes"`
	CreatedAt  time.Time `json:"created_at"`
	Warnings   []string  `json:"warnings,omitempty"` // as PutResult's
}

// PutSlices stores many slices of one artifact as Put stores one, each
// with its own deps and content, but with one snapshot of the work tree
// and one transaction: a 2,000-slice repo map is one call, not 2,000. All
// slices are stored or none is. req's Slice, Deps and Content are unused.
func (s *Service) PutSlices(ctx context.Context, req PutRequest, in []SliceInput) (*PutSlicesResult, error) {
	return s.putSlices(ctx, req, in, nil)
}

// putSlices is PutSlices, and with want Import: nothing is stored unless
// the work tree holds what want names, and the key's other slices on this
// ref are replaced.
func (s *Service) putSlices(ctx context.Context, req PutRequest, in []SliceInput, want *Want) (*PutSlicesResult, error) {
	if req.Type == "" || req.Key == "" {
		return nil, errors.New("put needs a type and a key")
	}
	if len(in) == 0 {
		return nil, errors.New("put: no slices given")
	}
	spec := SpecOf(req.Type)
	var err error
	if req.Key, err = s.fileKey(spec, req); err != nil {
		return nil, err
	}
	deps, all, err := s.sliceDeps(in, spec, req.Key, want != nil)
	if err != nil {
		return nil, err
	}
	at, err := s.hereFor(ctx, want)
	if err != nil {
		return nil, err
	}
	snap, err := s.snapshot(ctx, all)
	if err != nil {
		return nil, err
	}
	stamps := make([]freshness.Stamp, len(in))
	var warnings []string
	for i := range in {
		if stamps[i], err = snap.Stamp(ctx, deps[i], time.Time{}); err != nil {
			return nil, err
		}
		if err := allExist(stamps[i], spec, req.Key, fmt.Sprintf("slice %q: ", in[i].Name)); err != nil {
			return nil, err
		}
		warnings = append(warnings, unprovable(stamps[i], fmt.Sprintf("slice %q: ", in[i].Name))...)
	}
	pathSet, proof, ttl, err := s.settle(ctx, snap, spec, req.TTL)
	if err != nil {
		return nil, err
	}
	if err := checkWant(spec, want, at, stamps, pathSet); err != nil {
		return nil, err
	}
	contents := make([]*content, len(in))
	defer func() {
		for _, c := range contents {
			if c != nil {
				c.discard()
			}
		}
	}()
	res := &PutSlicesResult{Repo: at.repo, Ref: at.ref, Type: req.Type, Key: req.Key, Commit: at.commit, Tree: at.tree,
		Slices: len(in), Deps: len(all), TTLSeconds: int64(ttl / time.Second), Warnings: warnings}
	for i, sl := range in {
		if contents[i], err = readContent(s.Store, strings.NewReader(sl.Content)); err != nil {
			return nil, fmt.Errorf("slice %q: %w", sl.Name, err)
		}
		res.Bytes += contents[i].size
	}
	err = s.Store.Update(ctx, func(tx *store.Tx) error {
		res.CreatedAt = tx.Now
		if want != nil {
			if _, err := tx.ExecContext(ctx, `DELETE FROM artifacts WHERE repo = ? AND ref = ? AND type = ? AND key = ?`,
				at.repo, at.ref, req.Type, req.Key); err != nil {
				return err
			}
		}
		for i, sl := range in {
			one := req
			one.Slice = sl.Name
			if err := storeSlice(ctx, tx, s.WS.Root, at, one, pathSet, ttl, stamps[i], contents[i]); err != nil {
				return err
			}
		}
		if err := s.keepProof(tx, proof, pathSet); err != nil {
			return err
		}
		return afterPut(ctx, tx, at, req)
	})
	if err != nil {
		return nil, fmt.Errorf("put %s %s: %w", req.Type, req.Key, err)
	}
	return res, nil
}

// sliceDeps resolves each slice's deps (the key first for a type keyed by
// a file) and returns them with the union over all slices. Names must be
// given and distinct (with whole, one unnamed slice is the whole artifact).
func (s *Service) sliceDeps(in []SliceInput, spec Spec, key string, whole bool) (deps [][]string, all []string, err error) {
	names := make(map[string]bool, len(in))
	seen := map[string]bool{}
	deps = make([][]string, len(in))
	for i, sl := range in {
		if sl.Name == "" && !(whole && len(in) == 1) {
			return nil, nil, fmt.Errorf("slice %d of %d has no name", i+1, len(in))
		}
		if names[sl.Name] {
			return nil, nil, fmt.Errorf("slice %q is given twice", sl.Name)
		}
		names[sl.Name] = true
		d, err := s.resolve(sl.Deps)
		if err != nil {
			return nil, nil, fmt.Errorf("slice %q: %w", sl.Name, err)
		}
		d = withKey(spec, key, d)
		deps[i] = d
		for _, p := range d {
			if !seen[p] {
				seen[p] = true
				all = append(all, p)
			}
		}
	}
	return deps, all, nil
}

// settle keeps the snapshot's hashes and works out what every put records
// besides its stamps: the path set (for types that depend on it) with its
// proof and the TTL.
func (s *Service) settle(ctx context.Context, snap *freshness.Snapshot, spec Spec, reqTTL time.Duration) (
	pathSet string, proof *pathProof, ttl time.Duration, err error) {
	if err := snap.Flush(ctx); err != nil {
		return "", nil, 0, err
	}
	if spec.PathSet {
		l, err := s.listWithProof(ctx)
		if err != nil {
			return "", nil, 0, err
		}
		if pathSet, err = l.digest(ctx, snap); err != nil {
			return "", nil, 0, err
		}
		proof = l.proof
	}
	return pathSet, proof, putTTL(spec, reqTTL), nil
}

// putTTL is the TTL a put records: the request's, none when negative, else
// the type's.
func putTTL(spec Spec, ttl time.Duration) time.Duration {
	switch {
	case ttl > 0:
		return ttl
	case ttl < 0:
		return 0
	}
	return spec.TTL
}

// hereFor is where an import's caller read the work tree to be, else
// where it is now.
func (s *Service) hereFor(ctx context.Context, want *Want) (place, error) {
	if want != nil && want.At != nil {
		a := want.At
		return place{repo: a.Repo, ref: a.Ref, commit: a.Commit, tree: a.Tree}, nil
	}
	return s.here(ctx)
}
