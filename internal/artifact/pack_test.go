package artifact

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/testrace"
	"github.com/freshctx/freshctx/internal/workspace"
)

// normal makes slices read two ways comparable: an empty content or input
// list is the same whether it came back nil or empty.
func normal(sls []slice) []slice {
	out := make([]slice, len(sls))
	for i, sl := range sls {
		if len(sl.inline) == 0 {
			sl.inline = nil
		}
		if len(sl.deps) == 0 {
			sl.deps = nil
		}
		out[i] = sl
	}
	return out
}

func TestPackRoundTrip(t *testing.T) {
	at := time.Unix(1_700_000_000, 123)
	link := freshness.FileInfo{Dev: 1, Inode: 2, Size: 9, ModTime: 3, Ctime: 4, Mode: os.ModeSymlink | 0o777}
	file := freshness.FileInfo{Dev: 1, Inode: 5, Size: 42, ModTime: -6, Ctime: 7, Mode: 0o644}
	cases := map[string][]slice{
		"none":  {},
		"whole": {{id: 1, ref: "main", commit: "c", tree: "t", created: at, stamped: at, inline: []byte("x")}},
		"every field": {{
			id: 1 << 40, name: "src/é.go", ref: "feature/x", commit: strings.Repeat("a", 40), tree: strings.Repeat("b", 40),
			paths: "unlisted: too many", digests: Digests{AgentVersion: "v1", ConfigDigest: "c", PolicyDigest: "p", EntitlementDigest: "e"},
			ttl: time.Hour, created: at, stamped: at.Add(time.Second), blob: strings.Repeat("f", 64), invalidated: true,
			deps: []freshness.FileStamp{
				{Path: "src/é.go", Existed: true, Size: 42, ModTime: 8, Digest: [32]byte{1, 2, 3},
					FP: freshness.Fingerprint{File: file, Link: link, Target: "../elsewhere"}, Notes: 3},
				{Path: "gone.go"},
				{Path: "dir", Existed: true, IsDir: true, FP: freshness.Fingerprint{File: freshness.FileInfo{Mode: os.ModeDir | 0o755}}},
			},
		}},
		"shared strings": {
			{id: 1, name: "a", ref: "main", commit: "c", tree: "t", created: at, stamped: at, inline: []byte("same"),
				deps: []freshness.FileStamp{{Path: "a", Existed: true}}},
			{id: 2, name: "b", ref: "main", commit: "c", tree: "t", created: at, stamped: at, inline: []byte("same"),
				deps: []freshness.FileStamp{{Path: "a", Existed: true}, {Path: "b"}}},
			{id: 3, name: "", ref: "", commit: "", tree: "", created: time.Unix(0, 0), stamped: time.Unix(0, 0)},
		},
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := decodePack(encodePack(in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(normal(out), normal(in)) {
				t.Fatalf("read back\n%+v\nwant\n%+v", out, in)
			}
		})
	}
}

func TestPackMalformedIsAnError(t *testing.T) {
	good := pack([]slice{{id: 1, name: "a", deps: []freshness.FileStamp{{Path: "a"}}}})
	for i := range good {
		if _, err := unpack(good[:i]); err == nil {
			t.Fatalf("a pack cut to %d of %d bytes read without an error", i, len(good))
		}
	}
	if _, err := unpack(append(good, 0)); err == nil {
		t.Fatal("a pack with a byte after its end read without an error")
	}
	if _, err := decodePack([]byte("not zstd")); err == nil {
		t.Fatal("a pack that is not compressed read without an error")
	}
}

func FuzzUnpack(f *testing.F) {
	f.Add(pack([]slice{{id: 1, name: "a", ref: "main", deps: []freshness.FileStamp{{Path: "a", Existed: true}}}}))
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, b []byte) {
		sls, err := unpack(b)
		if err != nil {
			return
		}
		again, err := unpack(pack(sls)) // what reads, writes back the same
		if err != nil || !reflect.DeepEqual(normal(again), normal(sls)) {
			t.Fatalf("rewritten pack reads as %+v, %v; want %+v", again, err, sls)
		}
	})
}

// TestPackReadsAsTheRows applies random puts, gets (which keep packs),
// invalidations, edits and writes by any other hand (raw SQL on the rows
// and on the inputs), checking after every step that what a get reads —
// from the pack when it is current — is what the rows say.
func TestPackReadsAsTheRows(t *testing.T) {
	testrace.Skip(t, "draws packs and reads them on one goroutine")
	defer func(n int) { packMinSlices = n }(packMinSlices)
	packMinSlices = 1
	ctx := context.Background()
	files := []string{"a.go", "b.go", "sub/c.go", "sub"}
	packed := 0
	rapid.Check(t, func(rt *rapid.T) {
		r := testgit.Init(rt, t.TempDir())
		for _, p := range files[:3] {
			r.Write(p, "package p // "+p+"\n")
		}
		r.Commit("init")
		st, err := store.Open(ctx, r.Path(".freshctx/freshctx.db"), store.Options{})
		if err != nil {
			rt.Fatal(err)
		}
		defer st.Close()
		ws, err := workspace.Discover(r.Dir)
		if err != nil {
			rt.Fatal(err)
		}
		svc := &Service{WS: ws, Store: st, Cwd: r.Dir}
		typ := rapid.SampledFrom([]string{"repo_map", "tool_result"}).Draw(rt, "type")
		deps := func(label string) []string {
			return rapid.SliceOfNDistinct(rapid.SampledFrom(files), 0, 2, rapid.ID).Draw(rt, label)
		}
		body := func(label string) string {
			if rapid.Bool().Draw(rt, label+" large") {
				return strings.Repeat("large ", inlineLimit/5) // kept in a blob
			}
			return rapid.StringMatching(`[a-z]{0,8}`).Draw(rt, label)
		}
		ops := map[string]func(*rapid.T){
			"put slices": func(rt *rapid.T) {
				names := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"s1", "s2", "s3", "s4"}), 1, 4, rapid.ID).Draw(rt, "names")
				var in []SliceInput
				for _, n := range names {
					in = append(in, SliceInput{Name: n, Deps: deps("deps of " + n), Content: body("content of " + n)})
				}
				if _, err := svc.PutSlices(ctx, PutRequest{Type: typ, Key: "k"}, in); err != nil {
					rt.Fatal(err)
				}
			},
			"put one slice": func(rt *rapid.T) {
				name := rapid.SampledFrom([]string{"", "s1", "s5"}).Draw(rt, "slice")
				req := PutRequest{Type: typ, Key: "k", Slice: name, Deps: deps("deps"), Content: strings.NewReader(body("content")),
					Digests: Digests{AgentVersion: rapid.SampledFrom([]string{"", "v1"}).Draw(rt, "agent")}}
				if _, err := svc.Put(ctx, req); err != nil {
					rt.Fatal(err)
				}
			},
			"get": func(rt *rapid.T) {
				if _, err := svc.Get(ctx, GetRequest{Type: typ, Key: "k"}); err != nil {
					rt.Fatal(err)
				}
			},
			"invalidate": func(rt *rapid.T) {
				prefix := rapid.SampledFrom([]string{"a.go", "sub", "z"}).Draw(rt, "prefix")
				if _, err := svc.Invalidate(ctx, InvalidateRequest{PathPrefix: prefix}); err != nil {
					rt.Fatal(err)
				}
			},
			"edit": func(rt *rapid.T) {
				p := rapid.SampledFrom(files[:3]).Draw(rt, "file")
				r.Write(p, rapid.StringMatching(`[a-z]{1,8}`).Draw(rt, "text"))
			},
			"another writer": func(rt *rapid.T) {
				stmt := rapid.SampledFrom([]string{
					`DELETE FROM artifacts WHERE id = (SELECT min(id) FROM artifacts)`,
					`UPDATE artifacts SET invalidated = 1 - invalidated WHERE id = (SELECT max(id) FROM artifacts)`,
					`UPDATE artifact_deps SET size = size + 1 WHERE rowid = (SELECT max(rowid) FROM artifact_deps)`,
					`DELETE FROM artifact_deps WHERE rowid = (SELECT min(rowid) FROM artifact_deps)`,
					`INSERT INTO artifact_deps (artifact_id, path, existed, is_dir, size, mtime_ns, sha256, git_clean)
						SELECT id, 'new.go', 0, 0, 0, 0, '', 0 FROM artifacts WHERE id = (SELECT max(id) FROM artifacts)
						ON CONFLICT DO NOTHING`,
				}).Draw(rt, "statement")
				err := st.Update(ctx, func(tx *store.Tx) error {
					_, err := tx.ExecContext(ctx, stmt)
					return err
				})
				if err != nil {
					rt.Fatal(err)
				}
			},
		}
		check := func(rt *rapid.T) {
			repo, err := svc.repoID(ctx)
			if err != nil {
				rt.Fatal(err)
			}
			err = st.View(ctx, func(tx *store.Tx) error {
				got, ks, err := readSlices(ctx, tx, repo, typ, "k")
				if err != nil {
					return err
				}
				rows, err := querySlices(ctx, tx, `repo = ? AND type = ? AND key = ?`, repo, typ, "k")
				if err != nil {
					return err
				}
				if ks.fromPack {
					packed++
				}
				if !reflect.DeepEqual(normal(got), normal(rows)) {
					rt.Fatalf("a get reads (from a pack: %v)\n%+v\nthe rows say\n%+v", ks.fromPack, got, rows)
				}
				return nil
			})
			if err != nil {
				rt.Fatal(err)
			}
		}
		steps := rapid.IntRange(1, 12).Draw(rt, "steps")
		for range steps {
			name := rapid.SampledFrom([]string{"put slices", "put one slice", "get", "get", "invalidate", "edit", "another writer"}).Draw(rt, "op")
			ops[name](rt)
			check(rt)
		}
	})
	if packed == 0 {
		t.Fatal("no get read a pack: the property never reached the packs")
	}
}

// TestPackKeptAndUsed is the path an agent takes: a put, a get that keeps
// the pack, and a get that reads it and gives the same answer.
func TestPackKeptAndUsed(t *testing.T) {
	defer func(n int) { packMinSlices = n }(packMinSlices)
	packMinSlices = 2
	f := soundFixture(t)
	ctx := context.Background()
	in := []SliceInput{{Name: "a", Deps: []string{"mod_a/a.go"}, Content: "A"}, {Name: "b", Deps: []string{"mod_b/b.go"}, Content: "B"}}
	if _, err := f.svc.PutSlices(ctx, PutRequest{Type: "repo_map", Key: "root"}, in); err != nil {
		t.Fatal(err)
	}
	first := f.get(GetRequest{Type: "repo_map", Key: "root"})
	if n := packsOf(t, f.svc); n != 1 {
		t.Fatalf("%d packs kept after the first get, want 1", n)
	}
	second := f.get(GetRequest{Type: "repo_map", Key: "root"})
	if first.Outcome != Hit || !reflect.DeepEqual(first, second) {
		t.Fatalf("the get from the pack answered\n%+v\nthe get from the rows\n%+v", second, first)
	}
	f.r.Write("mod_b/b.go", "package B\n")
	if got := f.get(GetRequest{Type: "repo_map", Key: "root"}); got.Outcome != Stale {
		t.Fatalf("outcome = %s from the pack after an input changed, want stale", got.Outcome)
	}
	if _, err := f.svc.Put(ctx, PutRequest{Type: "repo_map", Key: "root", Slice: "b", Deps: []string{"mod_b/b.go"},
		Content: strings.NewReader("B2")}); err != nil {
		t.Fatal(err)
	}
	if n := packsOf(t, f.svc); n != 0 {
		t.Fatalf("%d packs left after a put of the key, want 0", n)
	}
	got := f.get(GetRequest{Type: "repo_map", Key: "root"})
	if got.Outcome != Hit || got.Slices[1].Content != "B2" {
		t.Fatalf("after the put: %s with slice b %q, want a hit with the new content", got.Outcome, got.Slices[1].Content)
	}
}

func packsOf(t *testing.T, svc *Service) int {
	t.Helper()
	var n int
	err := svc.Store.View(context.Background(), func(tx *store.Tx) error {
		return tx.QueryRowContext(context.Background(), `SELECT count(*) FROM artifact_packs`).Scan(&n)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPackOfAnOldGenIsNotUsed is a get racing a put: it read the rows
// before the put and keeps its pack after it. That pack must never answer.
func TestPackOfAnOldGenIsNotUsed(t *testing.T) {
	defer func(n int) { packMinSlices = n }(packMinSlices)
	packMinSlices = 1
	f := soundFixture(t)
	ctx := context.Background()
	f.put(PutRequest{Type: "tool_result", Key: "vet", Slice: "a", Deps: []string{"mod_a/a.go"}})
	repo, err := f.svc.repoID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var old []slice
	var ks keyState
	err = f.svc.Store.View(ctx, func(tx *store.Tx) error {
		old, ks, err = readSlices(ctx, tx, repo, "tool_result", "vet")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	f.put(PutRequest{Type: "tool_result", Key: "vet", Slice: "a", Deps: []string{"mod_b/b.go"}}) // meanwhile
	err = f.svc.Store.Update(ctx, func(tx *store.Tx) error { return keepPack(ctx, tx, repo, "tool_result", "vet", ks, old) })
	if err != nil {
		t.Fatal(err)
	}
	err = f.svc.Store.View(ctx, func(tx *store.Tx) error {
		got, now, err := readSlices(ctx, tx, repo, "tool_result", "vet")
		if err != nil {
			return err
		}
		if now.fromPack || len(got) != 1 || got[0].deps[0].Path != "mod_b/b.go" {
			t.Errorf("read %+v (from a pack: %v) after the put, want the put's slice from the rows", got, now.fromPack)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
