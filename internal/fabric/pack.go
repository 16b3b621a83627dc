package fabric

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/freshctx/freshctx/internal/digest"
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

// pack writes the slices uncompressed.
func pack(sls []slice) []byte {
	w := packWriter{seen: map[string]uint64{}}
	w.uint(uint64(len(sls)))
	for _, sl := range sls {
		w.int(sl.id)
		for _, s := range []string{sl.name, sl.ref, sl.commit, sl.tree, sl.paths, sl.digests.AgentVersion,
			sl.digests.ConfigDigest, sl.digests.PolicyDigest, sl.digests.EntitlementDigest, sl.blob} {
			w.str(s)
		}
		w.int(int64(sl.ttl))
		w.int(sl.created.UnixNano())
		w.int(sl.stamped.UnixNano())
		w.bytes(sl.inline)
		w.bool(sl.invalidated)
		w.uint(uint64(len(sl.deps)))
		for _, f := range sl.deps {
			w.file(f)
		}
	}
	return w.b
}

var errBadPack = errors.New("malformed artifact pack")

// decodePack reads what encodePack wrote.
func decodePack(data []byte) ([]slice, error) {
	b, err := store.Unpack(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBadPack, err)
	}
	return unpack(b)
}

// unpack reads the slices of an uncompressed pack.
func unpack(b []byte) ([]slice, error) {
	r := packReader{b: b}
	n := r.count()
	out := make([]slice, 0, n)
	for range n {
		var sl slice
		sl.id = r.int()
		for _, s := range []*string{&sl.name, &sl.ref, &sl.commit, &sl.tree, &sl.paths, &sl.digests.AgentVersion,
			&sl.digests.ConfigDigest, &sl.digests.PolicyDigest, &sl.digests.EntitlementDigest, &sl.blob} {
			*s = r.str()
		}
		sl.ttl = time.Duration(r.int())
		sl.created, sl.stamped = time.Unix(0, r.int()), time.Unix(0, r.int())
		sl.inline = r.bytes()
		sl.invalidated = r.bool()
		if k := r.count(); k > 0 {
			sl.deps = make([]freshness.FileStamp, k)
			for i := range sl.deps {
				sl.deps[i] = r.file()
			}
		}
		if r.err != nil {
			return nil, r.err
		}
		out = append(out, sl)
	}
	if r.err == nil && len(r.b) > 0 {
		r.err = errBadPack
	}
	return out, r.err
}

type packWriter struct {
	b    []byte
	seen map[string]uint64 // strings written, by their order
}

func (w *packWriter) uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *packWriter) int(v int64)   { w.b = binary.AppendVarint(w.b, v) }

func (w *packWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

func (w *packWriter) bytes(v []byte) {
	w.uint(uint64(len(v)))
	w.b = append(w.b, v...)
}

// str writes 0 and the string the first time, else 1 + its index.
func (w *packWriter) str(s string) {
	if i, ok := w.seen[s]; ok {
		w.uint(i + 1)
		return
	}
	w.seen[s] = uint64(len(w.seen))
	w.uint(0)
	w.bytes([]byte(s))
}

func (w *packWriter) info(fi freshness.FileInfo) {
	w.uint(fi.Dev)
	w.uint(fi.Inode)
	w.int(fi.Size)
	w.int(fi.ModTime)
	w.int(fi.Ctime)
	w.uint(uint64(fi.Mode))
}

func (w *packWriter) file(f freshness.FileStamp) {
	w.str(f.Path)
	w.bool(f.Existed)
	w.bool(f.IsDir)
	w.int(f.Size)
	w.int(f.ModTime)
	w.b = append(w.b, f.Digest[:]...)
	w.info(f.FP.File)
	w.info(f.FP.Link)
	w.str(f.FP.Target)
	w.int(int64(f.Notes))
}

// packReader reads a pack; the first malformed field sets err, and every
// read after it returns zero values.
type packReader struct {
	b    []byte
	strs []string
	err  error
}

func (r *packReader) fail() { r.err, r.b = errBadPack, nil }

func (r *packReader) uint() uint64 {
	v, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return v
}

func (r *packReader) int() int64 {
	v, k := binary.Varint(r.b)
	if k <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return v
}

// count reads a length, bounded by what is left to read.
func (r *packReader) count() int {
	n := r.uint()
	if n > uint64(len(r.b)) {
		r.fail()
		return 0
	}
	return int(n)
}

func (r *packReader) bool() bool {
	if len(r.b) == 0 {
		r.fail()
		return false
	}
	v := r.b[0] == 1
	r.b = r.b[1:]
	return v
}

func (r *packReader) raw(n int) []byte {
	if n > len(r.b) {
		r.fail()
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *packReader) bytes() []byte { return r.raw(r.count()) }

func (r *packReader) str() string {
	i := r.uint()
	if i == 0 {
		s := string(r.bytes())
		r.strs = append(r.strs, s)
		return s
	}
	if i > uint64(len(r.strs)) {
		r.fail()
		return ""
	}
	return r.strs[i-1]
}

func (r *packReader) info() freshness.FileInfo {
	return freshness.FileInfo{Dev: r.uint(), Inode: r.uint(), Size: r.int(), ModTime: r.int(), Ctime: r.int(),
		Mode: fs.FileMode(r.uint())}
}

func (r *packReader) file() freshness.FileStamp {
	var f freshness.FileStamp
	f.Path = r.str()
	f.Existed, f.IsDir = r.bool(), r.bool()
	f.Size, f.ModTime = r.int(), r.int()
	copy(f.Digest[:], r.raw(len(digest.Digest{})))
	f.FP.File, f.FP.Link = r.info(), r.info()
	f.FP.Target = r.str()
	f.Notes = freshness.Note(r.int())
	return f
}
