package store

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestPackReadsWhatWasWritten: every kind of field reads back as written,
// by a reader that copies strings and by one whose strings share the
// value; both stop at a value cut short.
func TestPackReadsWhatWasWritten(t *testing.T) {
	var w PackWriter
	w.Uint(7)
	w.Int(-3)
	w.Bool(true)
	w.String("src/é.go")
	w.String("")
	w.Bytes([]byte{0, 1, 2})
	w.Interned("main")
	w.Interned("main")
	w.String("last")
	read := func(r *PackReader) []any {
		return []any{r.Uint(), r.Int(), r.Bool(), r.String(), r.String(), r.Bytes(), r.Interned(), r.Interned(), r.String(), r.Left(), r.Err}
	}
	want := []any{uint64(7), int64(-3), true, "src/é.go", "", []byte{0, 1, 2}, "main", "main", "last", 0, nil}
	for name, r := range map[string]*PackReader{"copied": NewPackReader(w.B), "shared": NewSharedPackReader(append([]byte(nil), w.B...))} {
		if got := read(r); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read %v, want %v", name, got, want)
		}
	}
	for i := range len(w.B) {
		for name, r := range map[string]*PackReader{"copied": NewPackReader(w.B[:i]), "shared": NewSharedPackReader(append([]byte(nil), w.B[:i]...))} {
			if read(r); r.Err == nil {
				t.Fatalf("%s: a value cut to %d of %d bytes read without an error", name, i, len(w.B))
			}
		}
	}
}

// TestSizesAreWhatTheWriterAppends: UintSize, IntSize and StringSize give
// the bytes Uint, Int and String append, at every length of varint and at
// the ends of the ranges.
func TestSizesAreWhatTheWriterAppends(t *testing.T) {
	var ints []int64
	for shift := range 64 {
		v := int64(1) << shift
		ints = append(ints, v, v-1, -v, -v+1)
	}
	ints = append(ints, 0, math.MaxInt64, math.MinInt64)
	for _, v := range ints {
		var w PackWriter
		w.Int(v)
		if got := IntSize(v); got != len(w.B) {
			t.Errorf("IntSize(%d) = %d, Int appends %d", v, got, len(w.B))
		}
		w = PackWriter{}
		w.Uint(uint64(v))
		if got := UintSize(uint64(v)); got != len(w.B) {
			t.Errorf("UintSize(%d) = %d, Uint appends %d", uint64(v), got, len(w.B))
		}
	}
	for _, n := range []int{0, 1, 127, 128, 16383, 16384, 1 << 21} {
		s := strings.Repeat("s", n)
		var w PackWriter
		w.String(s)
		if got := StringSize(s); got != len(w.B) {
			t.Errorf("StringSize of %d bytes = %d, String appends %d", n, got, len(w.B))
		}
	}
}
