package artifact

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// exported puts req in one store and exports it, with the want an import
// takes from it.
func exported(t *testing.T, f *fixture, req PutRequest) (*Exported, Want) {
	t.Helper()
	res := f.put(req)
	x, err := f.svc.Export(context.Background(), res.Repo, res.Ref, res.Type, res.Key)
	if err != nil {
		t.Fatal(err)
	}
	want := Want{Files: map[string]string{}, Tree: x.Tree, PathSet: x.Slices[0].PathSet}
	for _, in := range x.Slices[0].Inputs {
		want.Files[in.Path] = in.SHA256
	}
	return x, want
}

func importInto(f *fixture, x *Exported, want Want) error {
	var in []SliceInput
	for _, sl := range x.Slices {
		var deps []string
		for _, d := range sl.Inputs {
			deps = append(deps, d.Path)
		}
		in = append(in, SliceInput{Name: sl.Name, Deps: deps, Content: sl.Content})
	}
	_, err := f.svc.Import(context.Background(), PutRequest{Type: x.Type, Key: x.Key, TTL: -1}, in, want)
	return err
}

// TestImportTakesOnlyTheSameBytes: an artifact exported from one store is
// a hit in another over the same bytes; when a file, the tree or the set
// of files differs, the import stores nothing.
func TestImportTakesOnlyTheSameBytes(t *testing.T) {
	from := newFixture(t)
	into := newFixtureAt(t, from.r, filepath.Join(t.TempDir(), "other.db"))
	into.svc.Cwd = filepath.Join(from.r.Dir, "mod_b") // deps are root-relative whatever the cwd
	x, want := exported(t, from, PutRequest{Type: "tool_result", Key: "lint", Deps: []string{"mod_a/a.go"},
		Content: strings.NewReader("lint: clean")})
	if len(x.Slices) != 1 || x.Slices[0].Content != "lint: clean" || len(x.Slices[0].Inputs) != 1 {
		t.Fatalf("exported %+v", x)
	}

	from.r.Write("mod_a/a.go", "package a // edited\n")
	if err := importInto(into, x, want); !errors.Is(err, ErrOtherBytes) {
		t.Fatalf("import over other bytes: %v, want ErrOtherBytes", err)
	}
	if got := into.get(GetRequest{Type: "tool_result", Key: "lint"}); got.Outcome != Cold {
		t.Fatalf("after a refused import: %s, want cold (nothing stored)", got.Outcome)
	}
	from.r.Write("mod_a/a.go", "package a\n\nimport \"fmt\"\n")
	if err := importInto(into, x, want); err != nil {
		t.Fatal(err)
	}
	if got := into.get(GetRequest{Type: "tool_result", Key: "lint"}); got.Outcome != Hit || got.Content != "lint: clean" {
		t.Fatalf("after the import: %s %q, want a hit", got.Outcome, got.Content)
	}

	m, mwant := exported(t, from, PutRequest{Type: "repo_map", Key: "root", Content: strings.NewReader("the map")})
	for name, w := range map[string]Want{
		"another tree":         {Files: mwant.Files, Tree: strings.Repeat("a", 40), PathSet: mwant.PathSet},
		"another set of files": {Files: mwant.Files, Tree: mwant.Tree, PathSet: "other"},
		"no tree":              {Files: mwant.Files, PathSet: mwant.PathSet},
	} {
		if err := importInto(into, m, w); !errors.Is(err, ErrOtherBytes) {
			t.Fatalf("repo map, %s: %v, want ErrOtherBytes", name, err)
		}
	}
	if err := importInto(into, m, mwant); err != nil {
		t.Fatal(err)
	}
	if got := into.get(GetRequest{Type: "repo_map", Key: "root"}); got.Outcome != Hit || got.Content != "the map" {
		t.Fatalf("repo map after the import: %s %q", got.Outcome, got.Content)
	}
}

// TestImportReplacesTheKeysSlices: an import is the whole artifact; a
// slice the store held that the import does not name is gone.
func TestImportReplacesTheKeysSlices(t *testing.T) {
	from := newFixture(t)
	into := newFixtureAt(t, from.r, filepath.Join(t.TempDir(), "other.db"))
	into.put(PutRequest{Type: "dependency_graph", Key: "g", Slice: "old", Deps: []string{"README.md"}})
	x, want := exported(t, from, PutRequest{Type: "dependency_graph", Key: "g", Slice: "new", Deps: []string{"mod_b/b.go"}})
	if err := importInto(into, x, want); err != nil {
		t.Fatal(err)
	}
	got := into.get(GetRequest{Type: "dependency_graph", Key: "g"})
	if got.Outcome != Hit || len(got.Slices) != 1 || got.Slices[0].Name != "new" {
		t.Fatalf("after importing: %s %+v", got.Outcome, got.Slices)
	}
}

// TestExportIsWhatThePutRecorded: a key never put is gone; an export gives
// the hashes taken at the put, whatever the work tree holds since.
func TestExportIsWhatThePutRecorded(t *testing.T) {
	f := newFixture(t)
	res := f.put(PutRequest{Type: "tool_result", Key: "t", Deps: []string{"mod_b/b.go"}})
	if _, err := f.svc.Export(context.Background(), res.Repo, res.Ref, "tool_result", "nothing"); !errors.Is(err, ErrGone) {
		t.Fatalf("export of a key never put: %v", err)
	}
	f.r.Remove("mod_b/b.go")
	f.get(GetRequest{Type: "tool_result", Key: "t"})
	x, err := f.svc.Export(context.Background(), res.Repo, res.Ref, "tool_result", "t")
	if err != nil || len(x.Slices[0].Inputs) != 1 || x.Slices[0].Inputs[0].SHA256 == "" {
		t.Fatalf("export after the input was removed: %v %+v, want the hash taken at the put", err, x)
	}
}
