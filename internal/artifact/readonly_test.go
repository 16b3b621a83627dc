package artifact

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testfs"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/teststore"
)

// A get from a store that cannot be written (a read-only mount) judges
// every artifact as a get from the same store writable does, in every
// mode, and writes nothing: no lookup counted, no pack, no proof, no
// repository id.
func TestGetFromAStoreThatCannotBeWritten(t *testing.T) {
	ctx := context.Background()
	r := testgit.New(t)
	r.Write("mod_a/a.go", "package a\n")
	r.Write("mod_b/b.go", "package b\n")
	r.Write("README.md", "# demo\n")
	r.Commit("init")
	var readOnly func() *store.Store
	f := newFixtureOn(t, r, func(now func() time.Time) *store.Store {
		var st *store.Store
		st, readOnly = teststore.OnAMount(t, store.Options{Now: now})
		return st
	})
	reqs := []GetRequest{
		{Type: "file_summary", Key: "mod_a/a.go"},
		{Type: "file_summary", Key: "mod_b/b.go"},
		{Type: "tool_result", Key: "lint", Digests: Digests{AgentVersion: "1"}},
		{Type: "tool_result", Key: "lint", Digests: Digests{AgentVersion: "2"}},
		{Type: "repo_map", Key: "root"},
		{Type: "dependency_graph", Key: "mod"},
		{Type: "file_summary", Key: "README.md"}, // never put: cold
	}
	f.put(PutRequest{Type: "file_summary", Key: "mod_a/a.go"})
	f.put(PutRequest{Type: "file_summary", Key: "mod_b/b.go"})
	f.put(PutRequest{Type: "tool_result", Key: "lint", Deps: []string{"mod_b"}, Digests: Digests{AgentVersion: "1"}})
	f.put(PutRequest{Type: "repo_map", Key: "root"})
	f.put(PutRequest{Type: "dependency_graph", Key: "mod", Deps: []string{"mod_a/a.go"}})
	// A get of each before: the writable store keeps what gets keep.
	for _, req := range reqs {
		f.get(req)
	}
	ro := readOnly()
	twin := filepath.Join(t.TempDir(), "freshctx.db")
	if b, err := os.ReadFile(ro.Path()); err != nil || os.WriteFile(twin, b, 0o600) != nil {
		t.Fatalf("copy the store: %v", err)
	}
	rw := teststore.Open(t, twin, store.Options{Now: f.svc.Now})
	before := rowCounts(t, ro)

	// One file touched an hour back (its bytes the same), one changed, one
	// added: the path set moves too.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(r.Dir, "mod_b/b.go"), old, old); err != nil {
		t.Fatal(err)
	}
	r.Write("mod_a/a.go", "package a // changed\n")
	r.Write("mod_c/c.go", "package c\n")
	want := []string{Stale, Hit, Hit, Stale, Stale, Stale, Cold}
	for _, mode := range []Mode{Default, Strict, Relaxed} {
		for round := range 2 { // and again: nothing was kept of the first
			for i, req := range reqs {
				req.Mode = mode
				got, err := (&Service{WS: f.svc.WS, Store: ro, Cwd: r.Dir, Now: f.svc.Now}).Get(ctx, req)
				if err != nil {
					t.Fatalf("%s %s/%s from the read-only store: %v", mode, req.Type, req.Key, err)
				}
				twinGot, err := (&Service{WS: f.svc.WS, Store: rw, Cwd: r.Dir, Now: f.svc.Now}).Get(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				if got.Outcome != twinGot.Outcome || !slices.Equal(dims(got), dims(twinGot)) {
					t.Errorf("%s %s/%s round %d: read-only %s %v, writable %s %v", mode, req.Type, req.Key, round,
						got.Outcome, dims(got), twinGot.Outcome, dims(twinGot))
				}
				if mode == Default && got.Outcome != want[i] {
					t.Errorf("%s/%s: %s %+v, want %s", req.Type, req.Key, got.Outcome, got.Reasons, want[i])
				}
			}
		}
	}
	if after := rowCounts(t, ro); !slices.Equal(after, before) {
		t.Errorf("the read-only store's rows went from %v to %v", before, after)
	}
}

// rowCounts gives the rows of what a get may keep, as text: its events,
// packs and generations, and meta (the proofs and the repository's id).
func rowCounts(t *testing.T, st *store.Store) []string {
	t.Helper()
	var out []string
	for _, table := range []string{"artifact_events", "artifact_packs", "artifact_gens", "meta"} {
		rows, err := st.DB().Query(`SELECT * FROM ` + table)
		if err != nil {
			t.Fatalf("read %s: %v", table, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(table, vals))
		}
		rows.Close()
	}
	slices.Sort(out)
	return out
}

// A get from a store on a disk with no room left answers as it would with
// room, without its bookkeeping: the lookup is not counted, and nothing is
// half-written.
func TestGetOnAFullDisk(t *testing.T) {
	ctx := context.Background()
	r := testgit.New(t)
	r.Write("mod_a/a.go", "package a\n")
	r.Commit("init")
	dir := testfs.Tmpfs(t, "2m")
	f := newFixtureAt(t, r, filepath.Join(dir, "freshctx.db"))
	f.put(PutRequest{Type: "file_summary", Key: "mod_a/a.go"})
	req := GetRequest{Type: "file_summary", Key: "mod_a/a.go"}
	f.get(req)
	testfs.Fill(t, dir)
	// Writes of the size a get's bookkeeping makes until the store takes
	// none: the WAL and the database have no page left to grow into.
	for i := 0; ; i++ {
		err := f.svc.Store.Update(ctx, func(tx *store.Tx) error {
			return tx.SetMeta(fmt.Sprintf("test.fill.%d", i), strings.Repeat("x", 200))
		})
		if errors.Is(err, store.ErrFull) {
			break
		}
		if err != nil || i == 100_000 {
			t.Fatalf("filling the store: write %d: %v", i, err)
		}
	}
	before := rowCounts(t, f.svc.Store)
	for _, want := range []string{Hit, Stale} {
		if want == Stale {
			r.Write("mod_a/a.go", "package a // changed\n")
		}
		got, err := f.svc.Get(ctx, req)
		if err != nil {
			t.Fatalf("get on a full disk: %v", err)
		}
		if got.Outcome != want {
			t.Fatalf("get on a full disk: %s %+v, want %s", got.Outcome, got.Reasons, want)
		}
	}
	if after := rowCounts(t, f.svc.Store); !slices.Equal(after, before) {
		t.Errorf("the full store's rows went from %d to %d rows", len(before), len(after))
	}
}
