package registry

import (
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/freshctx/freshctx/internal/store"
)

// TestScanIndexFormat: the scan index is kept in stores between versions;
// its bytes are, per row, the path and the fingerprint each as a length and
// the bytes, the time as a signed varint and a byte for watched. A value
// written so reads back, and one cut inside a row is an error.
func TestScanIndexFormat(t *testing.T) {
	want := []stored{{path: "a.go", fp: "1:2:3:4:5:420", at: -7, watched: true}, {path: "dir/é.go", at: 1 << 40}}
	var b []byte
	for _, r := range want {
		b = binary.AppendUvarint(b, uint64(len(r.path)))
		b = append(b, r.path...)
		b = binary.AppendUvarint(b, uint64(len(r.fp)))
		b = append(b, r.fp...)
		b = binary.AppendVarint(b, r.at)
		if r.watched {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	got, err := decodeScan(store.Pack(b))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read %+v, %v; want %+v", got, err, want)
	}
	if again, err := decodeScan(encodeScan(want)); err != nil || !reflect.DeepEqual(again, want) {
		t.Fatalf("round trip %+v, %v", again, err)
	}
	for i := 1; i < len(b); i++ {
		if got, err := decodeScan(store.Pack(b[:i])); err == nil && len(got) != 0 && i != firstRowLen(want[0]) {
			t.Fatalf("cut to %d bytes: read %+v without an error", i, got)
		}
	}
}

func firstRowLen(r stored) int {
	n := len(binary.AppendUvarint(nil, uint64(len(r.path)))) + len(r.path)
	n += len(binary.AppendUvarint(nil, uint64(len(r.fp)))) + len(r.fp)
	n += len(binary.AppendVarint(nil, r.at)) + 1
	return n
}
