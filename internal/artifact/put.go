package artifact

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
)

// PutRequest stores one artifact (or one slice of it).
type PutRequest struct {
	Type, Key string
	// Slice names the part of the artifact being stored; "" is the whole.
	Slice string
	// Deps are the files the artifact (slice) was derived from.
	Deps []string
	Digests
	// TTL overrides the type's default; 0 keeps the default, negative none.
	TTL      time.Duration
	Producer string
	Content  io.Reader
}

// PutResult is the provenance recorded.
type PutResult struct {
	Repo       string    `json:"repo"`
	Ref        string    `json:"ref"`
	Type       string    `json:"type"`
	Key        string    `json:"key"`
	Slice      string    `json:"slice"`
	Commit     string    `json:"commit"`
	Tree       string    `json:"tree"`
	Deps       []string  `json:"deps"`
	TTLSeconds int64     `json:"ttl_seconds"`
	Bytes      int64     `json:"bytes"`
	CreatedAt  time.Time `json:"created_at"`
	// Warnings name the deps that no later get can find unchanged (a
	// link outside the root, a file changing while it was read): the
	// artifact is stored but will never be a hit.
	Warnings []string `json:"warnings,omitempty"`
}

// Put stores content with its provenance: repo, ref, commit, tree, the
// digests of its inputs (and the tree's path set for a repo map), the
// versions and digests vouched for, TTL and producer. A slice replaces the
// slice of the same name; putting clears a forced invalidation.
func (s *Service) Put(ctx context.Context, req PutRequest) (*PutResult, error) {
	if req.Type == "" || req.Key == "" {
		return nil, errors.New("put needs a type and a key")
	}
	spec := SpecOf(req.Type)
	deps, err := s.resolve(req.Deps)
	if err != nil {
		return nil, err
	}
	if req.Key, err = s.fileKey(spec, req); err != nil {
		return nil, err
	}
	deps = withKey(spec, req.Key, deps)
	at, err := s.here(ctx)
	if err != nil {
		return nil, err
	}
	snap, err := s.snapshot(ctx, deps)
	if err != nil {
		return nil, err
	}
	stamp, err := snap.Stamp(ctx, deps, time.Time{})
	if err != nil {
		return nil, err
	}
	if err := allExist(stamp, spec, req.Key, ""); err != nil {
		return nil, err
	}
	pathSet, proof, ttl, err := s.settle(ctx, snap, spec, req.TTL)
	if err != nil {
		return nil, err
	}
	res := &PutResult{Repo: at.repo, Ref: at.ref, Type: req.Type, Key: req.Key, Slice: req.Slice,
		Commit: at.commit, Tree: at.tree, Deps: deps, TTLSeconds: int64(ttl / time.Second), Warnings: unprovable(stamp, "")}
	c, err := readContent(s.Store, req.Content)
	if err != nil {
		return nil, err
	}
	defer c.discard()
	err = s.Store.Update(ctx, func(tx *store.Tx) error {
		res.Bytes, res.CreatedAt = c.size, tx.Now
		if err := storeSlice(ctx, tx, s.WS.Root, at, req, pathSet, ttl, stamp, c); err != nil {
			return err
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

// allExist refuses a stamp that found one of its files missing, naming it
// as the caller gave it: the key of a type keyed by a file, or a --dep
// (of the slice named by where, if any).
func allExist(st freshness.Stamp, spec Spec, key, where string) error {
	for _, f := range st.Files {
		switch {
		case f.Existed:
		case spec.KeyIsFile && f.Path == key:
			return fmt.Errorf("%skey %s: no such file (a %s is keyed by the file it describes)", where, f.Path, spec.Name)
		default:
			return fmt.Errorf("%s--dep %s: no such file", where, f.Path)
		}
	}
	return nil
}

// unprovable warns of the files of a stamp that can never be found
// unchanged; where names the slice, if any.
func unprovable(st freshness.Stamp, where string) []string {
	var out []string
	for _, f := range st.Files {
		if why, ok := f.Unprovable(); ok {
			out = append(out, fmt.Sprintf("%s--dep %s: %s; this artifact will not be a hit until it is put again", where, f.Path, why))
		}
	}
	return out
}

// fileKey resolves the key of a type keyed by a file as a --dep path is
// resolved; any other key is returned as given.
func (s *Service) fileKey(spec Spec, req PutRequest) (string, error) {
	if !spec.KeyIsFile {
		return req.Key, nil
	}
	key, err := s.resolve([]string{req.Key})
	if err != nil {
		return "", fmt.Errorf("%s key: %w", req.Type, err)
	}
	return key[0], nil
}

// withKey makes the key's file the first dep of a type keyed by a file.
func withKey(spec Spec, key string, deps []string) []string {
	if !spec.KeyIsFile || slices.Contains(deps, key) {
		return deps
	}
	return append([]string{key}, deps...)
}

// storeSlice commits one slice's content and writes its row and deps.
func storeSlice(ctx context.Context, tx *store.Tx, root string, at place, req PutRequest, pathSet string, ttl time.Duration,
	stamp freshness.Stamp, c *content) error {
	if err := c.commit(tx); err != nil {
		return err
	}
	id, err := upsertArtifact(ctx, tx, root, at, req, pathSet, ttl, stamp, c)
	if err != nil {
		return err
	}
	return freshness.InsertFiles(ctx, tx, "artifact_deps", "artifact_id", id, stamp.Files)
}

// afterPut drops the contents the put replaced and counts it.
func afterPut(ctx context.Context, tx *store.Tx, at place, req PutRequest) error {
	if _, _, err := tx.DeleteOrphanBlobs(); err != nil {
		return err
	}
	return event(ctx, tx, "put", at.repo, req.Type, req.Key)
}

// upsertArtifact replaces the row of one slice. Its tree_clean is no
// longer written (0): nothing read it, and it cost every put a whole-tree
// git status.
func upsertArtifact(ctx context.Context, tx *store.Tx, root string, at place, req PutRequest, pathSet string, ttl time.Duration,
	stamp freshness.Stamp, c *content) (int64, error) {
	_, err := tx.ExecContext(ctx, `DELETE FROM artifacts WHERE repo = ? AND ref = ? AND type = ? AND key = ? AND slice = ?`,
		at.repo, at.ref, req.Type, req.Key, req.Slice)
	if err != nil {
		return 0, err
	}
	r, err := tx.ExecContext(ctx, `INSERT INTO artifacts (repo, ref, type, key, slice, root, commit_sha, tree, tree_clean,
		path_set, agent_version, config_digest, policy_digest, entitlement_digest, ttl_ns, producer, created_at,
		stamped_at, content, content_blob, content_size) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		at.repo, at.ref, req.Type, req.Key, req.Slice, root, at.commit, at.tree,
		pathSet, req.AgentVersion, req.ConfigDigest, req.PolicyDigest, req.EntitlementDigest, int64(ttl), req.Producer,
		tx.Now.UnixNano(), stamp.At.UnixNano(), c.inline, c.blobRef(), c.size)
	if err != nil {
		return 0, err
	}
	return r.LastInsertId()
}
