package freshness

import (
	"fmt"
	"io/fs"

	"github.com/freshctx/freshctx/internal/sha"
	"github.com/freshctx/freshctx/internal/store"
)

// File stamps are also kept packed (store.PackWriter): an artifact's
// slices with their inputs, a record's files. Read from one value, 2,000
// stamps take a fraction of what their rows take one column at a time.

// WriteStamp appends a file stamp to a packed value: every field, the
// path and a link's target interned.
func WriteStamp(w *store.PackWriter, f FileStamp) {
	w.Interned(f.Path)
	w.Bool(f.Existed)
	w.Bool(f.IsDir)
	w.Int(f.Size)
	w.Int(f.ModTime)
	w.Raw(f.Digest[:])
	writeInfo(w, f.FP.File)
	writeInfo(w, f.FP.Link)
	w.Interned(f.FP.Target)
	w.Int(int64(f.Notes))
}

// ReadStamp reads what WriteStamp wrote; a value cut short sets r.Err.
func ReadStamp(r *store.PackReader) FileStamp {
	var f FileStamp
	f.Path = r.Interned()
	f.Existed, f.IsDir = r.Bool(), r.Bool()
	f.Size, f.ModTime = r.Int(), r.Int()
	copy(f.Digest[:], r.Raw(len(sha.Sum{})))
	f.FP.File, f.FP.Link = readInfo(r), readInfo(r)
	f.FP.Target = r.Interned()
	f.Notes = Note(r.Int())
	return f
}

func writeInfo(w *store.PackWriter, fi FileInfo) {
	w.Uint(fi.Dev)
	w.Uint(fi.Inode)
	w.Int(fi.Size)
	w.Int(fi.ModTime)
	w.Int(fi.Ctime)
	w.Uint(uint64(fi.Mode))
}

func readInfo(r *store.PackReader) FileInfo {
	return FileInfo{Dev: r.Uint(), Inode: r.Uint(), Size: r.Int(), ModTime: r.Int(), Ctime: r.Int(),
		Mode: fs.FileMode(r.Uint())}
}

// PackStamps is files as one compressed value: their count, then each
// stamp (WriteStamp).
func PackStamps(files []FileStamp) []byte {
	return store.Pack(writeStamps(files))
}

// UnpackStamps reads what PackStamps wrote.
func UnpackStamps(data []byte) ([]FileStamp, error) {
	b, err := store.Unpack(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", store.ErrBadPack, err)
	}
	return readStamps(b)
}

// writeStamps is PackStamps' value before compression.
func writeStamps(files []FileStamp) []byte {
	var w store.PackWriter
	w.Uint(uint64(len(files)))
	for _, f := range files {
		WriteStamp(&w, f)
	}
	return w.B
}

// readStamps reads what writeStamps wrote.
func readStamps(b []byte) ([]FileStamp, error) {
	r := store.NewPackReader(b)
	n := r.Count()
	files := make([]FileStamp, 0, n)
	for range n {
		f := ReadStamp(r)
		if r.Err != nil {
			return nil, r.Err
		}
		files = append(files, f)
	}
	if r.Err == nil && r.Left() > 0 {
		r.Err = store.ErrBadPack
	}
	return files, r.Err
}
