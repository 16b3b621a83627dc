package records

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// BenchmarkCapture measures capturing a 20 MB log of 500,000 lines through
// the whole pipeline (blob, analysis, tokens, stamp, store), in MB/s.
func BenchmarkCapture(b *testing.B) {
	var log bytes.Buffer
	for i := 0; log.Len() < 20<<20; i++ {
		fmt.Fprintf(&log, "2026-11-21T05:00:00Z INFO request %d served in %dms path=/api/v1/items\n", i, i%97)
		if i%5000 == 0 {
			fmt.Fprintf(&log, "pkg/handler.go:%d: error: upstream timeout\n", i%400)
		}
	}
	s, _ := newService(b)
	b.SetBytes(int64(log.Len()))
	for b.Loop() {
		if _, err := s.Capture(context.Background(), CaptureRequest{Input: bytes.NewReader(log.Bytes())}); err != nil {
			b.Fatal(err)
		}
	}
}
