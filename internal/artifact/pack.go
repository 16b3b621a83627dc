package artifact

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
)

// A pack is the slices of one (repo, type, key) — their rows and the stamps
// of their inputs — as a get read them, kept in one compressed value
// (artifact_packs). It is read only while its gen equals the key's gen in
// artifact_gens, which the store's triggers bump on every write to the
// key's artifacts or artifact_deps rows: a pack says what the rows say or
// is not used. Reading 2,000 slices row by row cost most of a get.

// packFormat is the encoding written; a pack of another is read from the
// rows instead, and replaced.
const packFormat = 1

// packMinSlices is how many slices a key needs before its get keeps a
// pack: a key of a few rows reads them in well under a millisecond, and
// its pack would be one more value to write after every put.
var packMinSlices = 64 // a variable for tests

// keyState is what a get learnt of its key's slices: their gen, and
// whether a pack answered.
type keyState struct {
	gen      int64 // 0: the key has no gen row (nothing stored)
	fromPack bool
}

// readSlices returns the slices of a key: from its pack when it is current,
// else from the rows.
func readSlices(ctx context.Context, tx *store.Tx, repo, typ, key string) ([]slice, keyState, error) {
	var ks keyState
	var packGen, format sql.NullInt64
	var data []byte
	err := tx.QueryRowContext(ctx, `SELECT g.gen, p.gen, p.format, p.data FROM artifact_gens g
		LEFT JOIN artifact_packs p ON p.repo = g.repo AND p.type = g.type AND p.key = g.key
		WHERE g.repo = ? AND g.type = ? AND g.key = ?`, repo, typ, key).Scan(&ks.gen, &packGen, &format, &data)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, ks, fmt.Errorf("look up artifact: %w", err)
	}
	if ks.gen > 0 && packGen.Valid && packGen.Int64 == ks.gen && format.Int64 == packFormat {
		if found, err := decodePack(data); err == nil {
			ks.fromPack = true
			return found, ks, nil
		}
		// A pack that cannot be read is replaced from the rows.
	}
	if ks.gen == 0 {
		return nil, ks, nil // every key with rows has a gen (the triggers)
	}
	found, err := querySlices(ctx, tx, `repo = ? AND type = ? AND key = ?`, repo, typ, key)
	return found, ks, err
}

// keepPack stores the slices read at ks.gen as the key's pack, unless a
// pack answered or the key has changed since (its gen moved on: the pack
// would never be read, so it is not written).
func keepPack(ctx context.Context, tx *store.Tx, repo, typ, key string, ks keyState, found []slice) error {
	if ks.fromPack || ks.gen == 0 || len(found) < packMinSlices {
		return nil
	}
	data := encodePack(found)
	_, err := tx.ExecContext(ctx, `INSERT INTO artifact_packs (repo, type, key, gen, format, data)
		SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE (SELECT gen FROM artifact_gens WHERE repo = ?1 AND type = ?2 AND key = ?3) = ?4
		ON CONFLICT(repo, type, key) DO UPDATE SET gen = excluded.gen, format = excluded.format, data = excluded.data`,
		repo, typ, key, ks.gen, packFormat, data)
	if err != nil {
		return fmt.Errorf("keep the slices of %s %s: %w", typ, key, err)
	}
	return nil
}

// encodePack writes the slices in packFormat: every field in order, each
// string once (later uses refer to the first), zstd-compressed.
func encodePack(sls []slice) []byte {
	return store.Pack(pack(sls))
}

// pack writes the slices uncompressed: every field in order, strings
// interned (the same ref, commit and tree in every slice are written once).
func pack(sls []slice) []byte {
	var w store.PackWriter
	w.Uint(uint64(len(sls)))
	for _, sl := range sls {
		w.Int(sl.id)
		for _, s := range []string{sl.name, sl.ref, sl.commit, sl.tree, sl.paths, sl.digests.AgentVersion,
			sl.digests.ConfigDigest, sl.digests.PolicyDigest, sl.digests.EntitlementDigest, sl.blob} {
			w.Interned(s)
		}
		w.Int(int64(sl.ttl))
		w.Int(sl.created.UnixNano())
		w.Int(sl.stamped.UnixNano())
		w.Bytes(sl.inline)
		w.Bool(sl.invalidated)
		w.Uint(uint64(len(sl.deps)))
		for _, f := range sl.deps {
			freshness.WriteStamp(&w, f)
		}
	}
	return w.B
}

// decodePack reads what encodePack wrote.
func decodePack(data []byte) ([]slice, error) {
	b, err := store.Unpack(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", store.ErrBadPack, err)
	}
	return unpack(b)
}

// unpack reads the slices of an uncompressed pack.
func unpack(b []byte) ([]slice, error) {
	r := store.NewPackReader(b)
	n := r.Count()
	out := make([]slice, 0, n)
	for range n {
		var sl slice
		sl.id = r.Int()
		for _, s := range []*string{&sl.name, &sl.ref, &sl.commit, &sl.tree, &sl.paths, &sl.digests.AgentVersion,
			&sl.digests.ConfigDigest, &sl.digests.PolicyDigest, &sl.digests.EntitlementDigest, &sl.blob} {
			*s = r.Interned()
		}
		sl.ttl = time.Duration(r.Int())
		sl.created, sl.stamped = time.Unix(0, r.Int()), time.Unix(0, r.Int())
		sl.inline = r.Bytes()
		sl.invalidated = r.Bool()
		if k := r.Count(); k > 0 {
			sl.deps = make([]freshness.FileStamp, k)
			for i := range sl.deps {
				sl.deps[i] = freshness.ReadStamp(r)
			}
		}
		if r.Err != nil {
			return nil, r.Err
		}
		out = append(out, sl)
	}
	if r.Err == nil && r.Left() > 0 {
		r.Err = store.ErrBadPack
	}
	return out, r.Err
}
