package artifact

import (
	"context"
	"strings"
	"sync"
	"testing"
)

func TestPutSlicesIsManyPutsInOne(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	in := []SliceInput{
		{Name: "mod_a/a.go", Deps: []string{"mod_a/a.go"}, Content: "a: fmt"},
		{Name: "mod_b/b.go", Deps: []string{"mod_b/b.go"}, Content: strings.Repeat("b", inlineLimit+10)}, // a blob
		{Name: "readme", Deps: []string{"README.md", "mod_a/a.go"}, Content: "demo"},
	}
	res, err := f.svc.PutSlices(ctx, PutRequest{Type: "repo_map", Key: "root"}, in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Slices != 3 || res.Deps != 3 || res.Bytes != int64(6+inlineLimit+10+4) {
		t.Fatalf("result %+v", res)
	}
	got := f.get(GetRequest{Type: "repo_map", Key: "root"})
	if got.Outcome != Hit || len(got.Slices) != 3 {
		t.Fatalf("get = %s with %d slices, want a hit with 3", got.Outcome, len(got.Slices))
	}
	for i, s := range got.Slices {
		if want := in[i]; s.Name != want.Name || s.Content != want.Content || !s.Fresh {
			t.Fatalf("slice %d = %s fresh=%v (%d bytes), want %s fresh", i, s.Name, s.Fresh, len(s.Content), want.Name)
		}
	}

	// One dep changes: the slices that used it are stale, the other is not.
	f.r.Write("mod_a/a.go", "package a\n// changed\n")
	got = f.get(GetRequest{Type: "repo_map", Key: "root"})
	fresh := map[string]bool{}
	for _, s := range got.Slices {
		fresh[s.Name] = s.Fresh
	}
	if got.Outcome != Stale || fresh["mod_a/a.go"] || !fresh["mod_b/b.go"] || fresh["readme"] {
		t.Fatalf("after a.go changed: %s, fresh %v", got.Outcome, fresh)
	}

	// A batch replaces slices of the same name and keeps the others.
	if _, err := f.svc.PutSlices(ctx, PutRequest{Type: "repo_map", Key: "root"},
		[]SliceInput{{Name: "mod_a/a.go", Deps: []string{"mod_a/a.go"}, Content: "a: changed"}}); err != nil {
		t.Fatal(err)
	}
	got = f.get(GetRequest{Type: "repo_map", Key: "root"})
	if len(got.Slices) != 3 || got.Slices[0].Content != "a: changed" || !got.Slices[0].Fresh {
		t.Fatalf("after replacing a.go's slice: %+v", got.Slices)
	}
}

func TestPutSlicesIsAllOrNone(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []SliceInput
		want string
	}{
		{"missing dep", []SliceInput{{Name: "a", Deps: []string{"mod_a/a.go"}}, {Name: "b", Deps: []string{"gone.go"}}}, `slice "b": --dep gone.go: no such file`},
		{"twice", []SliceInput{{Name: "a"}, {Name: "a"}}, `slice "a" is given twice`},
		{"no name", []SliceInput{{Name: "a"}, {Deps: []string{"README.md"}}}, "slice 2 of 2 has no name"},
		{"none", nil, "no slices given"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			_, err := f.svc.PutSlices(context.Background(), PutRequest{Type: "repo_map", Key: "root"}, c.in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if got := f.get(GetRequest{Type: "repo_map", Key: "root"}); got.Outcome != Cold {
				t.Fatalf("after a failed batch: %s, want cold (nothing stored)", got.Outcome)
			}
		})
	}
}

func TestReadSlices(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     int
		err      string
	}{
		{"lines", `{"slice":"a","deps":["a.go"],"content":"x"}` + "\n\n" + `{"slice":"b"}` + "\n", 2, ""},
		{"array", ` [{"slice":"a"},{"slice":"b","content":"y"}]`, 2, ""},
		{"unknown field", `{"slice":"a","dep":["a.go"]}`, 0, `line 1: json: unknown field "dep"`},
		{"bad line", "{\"slice\":\"a\"}\n{oops\n", 0, "line 2:"},
		{"two on a line", `{"slice":"a"} {"slice":"b"}`, 0, "line 1: more than one object"},
		{"empty", " \n", 0, "no slices given"},
		{"blank with a vertical tab", "\v \n", 0, "no slices given"},
		{"empty array", "[]", 0, "no slices given"},
		{"after the array", `[{"slice":"a"}] {"slice":"b"}`, 0, "something follows it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReadSlices(strings.NewReader(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || len(got) != c.want {
				t.Fatalf("got %d slices, %v; want %d", len(got), err, c.want)
			}
		})
	}
}

func FuzzReadSlices(f *testing.F) {
	f.Add(`{"slice":"a","deps":["a.go"],"content":"x"}`)
	f.Add(`[{"slice":"a"}]`)
	f.Fuzz(func(t *testing.T, in string) {
		slices, err := ReadSlices(strings.NewReader(in))
		if err == nil && len(slices) == 0 {
			t.Fatalf("no slices and no error from %q", in)
		}
	})
}

// TestSlicesOfAFileKeyDependOnIt: for a type keyed by a file, every slice
// depends on the key's file as a single put does.
func TestSlicesOfAFileKeyDependOnIt(t *testing.T) {
	f := newFixture(t)
	_, err := f.svc.PutSlices(context.Background(), PutRequest{Type: "file_summary", Key: "mod_a/a.go"},
		[]SliceInput{{Name: "imports", Deps: []string{"README.md"}, Content: "fmt"}, {Name: "doc", Content: "none"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.get(GetRequest{Type: "file_summary", Key: "mod_a/a.go"}); got.Outcome != Hit {
		t.Fatalf("before any change: %s", got.Outcome)
	}
	f.r.Write("mod_a/a.go", "package a\n// changed\n")
	got := f.get(GetRequest{Type: "file_summary", Key: "mod_a/a.go"})
	for _, s := range got.Slices {
		if s.Fresh {
			t.Fatalf("slice %s is fresh after its key's file changed", s.Name)
		}
	}
	if got.Outcome != Stale || len(got.Slices) != 2 {
		t.Fatalf("after the key's file changed: %s with %d slices", got.Outcome, len(got.Slices))
	}
}

// A put and a get ask git for no status: where HEAD is comes from one
// rev-parse, the stamps are freshctx's own, and the path set has its own
// listing. A whole-tree status per put (the slowest thing git does in a
// large repository) once paid for a column nothing read.
func TestPutAndGetRunNoStatus(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex // git runs on more than one goroutine
	var asked []string
	run := f.svc.WS.Git.Run
	f.svc.WS.Git.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		mu.Lock()
		asked = append(asked, strings.Join(args, " "))
		mu.Unlock()
		return run(ctx, dir, args...)
	}
	f.put(PutRequest{Type: "file_summary", Key: "mod_a/a.go", Deps: []string{"mod_a/a.go"}})
	if _, err := f.svc.PutSlices(context.Background(), PutRequest{Type: "repo_map", Key: "root"},
		[]SliceInput{{Name: "mod_b/b.go", Deps: []string{"mod_b/b.go"}, Content: "b"}}); err != nil {
		t.Fatal(err)
	}
	f.get(GetRequest{Type: "file_summary", Key: "mod_a/a.go"})
	f.get(GetRequest{Type: "repo_map", Key: "root"})
	mu.Lock()
	defer mu.Unlock()
	for _, a := range asked {
		if strings.Contains(a, "status") {
			t.Errorf("git %s", a)
		}
	}
	if len(asked) == 0 {
		t.Fatal("no git at all: the test's runner was not used")
	}
}
