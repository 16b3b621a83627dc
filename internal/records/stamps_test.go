package records

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/freshctx/freshctx/internal/freshness"
)

// notFresh is the verdicts that are not fresh, for a failure's message.
func notFresh(files []freshness.FileResult) []freshness.FileResult {
	var out []freshness.FileResult
	for _, f := range files {
		if f.Label != freshness.Fresh {
			out = append(out, f)
		}
	}
	return out
}

// TestStampsPackReadsAsTheRows: a record naming many files keeps a pack
// of their stamps, which reads as its rows do; a record without one, or
// whose pack cannot be read, is read from its rows with the same answer;
// a record naming few keeps none, and forget takes the pack with the
// record.
func TestStampsPackReadsAsTheRows(t *testing.T) {
	s, r := newService(t)
	var out strings.Builder
	for i := range 100 {
		p := fmt.Sprintf("pkg/f%03d.go", i)
		if i < 99 { // one named file does not exist (and is not stamped)
			r.Write(p, fmt.Sprintf("package pkg // %d\n", i))
		}
		fmt.Fprintf(&out, "%s:1: note\n", p)
	}
	// Past the file clock's tick. The file system may give a file a
	// fine-grained time, ahead of the coarse clock a capture's start is
	// read from, so a file written in that tick is noted as changed while
	// the capture ran, and stays unknown.
	tick()
	ctx := context.Background()
	many, err := s.Capture(ctx, CaptureRequest{Input: strings.NewReader(out.String())})
	if err != nil {
		t.Fatal(err)
	}
	few, err := s.Capture(ctx, CaptureRequest{Input: strings.NewReader("pkg/calc.go:3: wrong sum\n")})
	if err != nil {
		t.Fatal(err)
	}
	packs := func() int {
		var n int
		if err := s.Store.DB().QueryRowContext(ctx, `SELECT count(*) FROM record_stamps`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := packs(); n != 1 {
		t.Fatalf("%d packs, want the one of the record naming 100 files", n)
	}
	r.Write("pkg/f007.go", "package pkg // changed\n")
	show := func() *Record {
		rec, err := s.Show(ctx, many.ID)
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	packed := show()
	if len(packed.stamp.Files) < 99 || packed.Freshness.Label != "stale_changed" {
		t.Fatalf("from the pack: %d files, %s: %+v", len(packed.stamp.Files), packed.Freshness.Label, notFresh(packed.Freshness.Files))
	}
	for name, change := range map[string]string{
		"a pack that cannot be read": `UPDATE record_stamps SET data = x'00'`,
		"no pack":                    `DELETE FROM record_stamps`,
	} {
		if _, err := s.Store.DB().ExecContext(ctx, change); err != nil {
			t.Fatal(err)
		}
		rows := show()
		if !reflect.DeepEqual(rows.stamp.Files, packed.stamp.Files) || !reflect.DeepEqual(rows.Freshness, packed.Freshness) {
			t.Fatalf("%s: the rows read as\n%+v\nthe pack as\n%+v", name, rows.stamp.Files, packed.stamp.Files)
		}
	}
	if _, err := s.Store.DB().ExecContext(ctx, `DELETE FROM record_stamps`); err != nil {
		t.Fatal(err)
	}
	again, err := s.Capture(ctx, CaptureRequest{Input: strings.NewReader(out.String())})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Forget(ctx, []int64{again.ID, few.ID}); err != nil {
		t.Fatal(err)
	}
	if n := packs(); n != 0 {
		t.Fatalf("%d packs after the record that kept one was forgotten", n)
	}
}
