package artifact

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshctx/freshctx/internal/teststore"

	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testgit"
)

type fixture struct {
	t     *testing.T
	r     *testgit.Repo
	svc   *Service
	clock time.Time
}

func newFixture(t *testing.T) *fixture {
	r := testgit.New(t)
	r.Write("mod_a/a.go", "package a\n\nimport \"fmt\"\n")
	r.Write("mod_b/b.go", "package b\n")
	r.Write("README.md", "# demo\n")
	r.Commit("init")
	return newFixtureAt(t, r, filepath.Join(t.TempDir(), "freshctx.db"))
}

func newFixtureAt(t *testing.T, r *testgit.Repo, db string) *fixture {
	return newFixtureOn(t, r, func(now func() time.Time) *store.Store {
		return teststore.Open(t, db, store.Options{Now: now})
	})
}

// newFixtureOn is a fixture whose store open opens, on the fixture's clock.
func newFixtureOn(t *testing.T, r *testgit.Repo, open func(now func() time.Time) *store.Store) *fixture {
	f := &fixture{t: t, r: r, clock: time.Now()}
	now := func() time.Time { return f.clock }
	ws := teststore.Workspace(t, r.Dir)
	f.svc = &Service{WS: ws, Store: open(now), Cwd: r.Dir, Now: now}
	return f
}

func (f *fixture) put(req PutRequest) *PutResult {
	f.t.Helper()
	if req.Content == nil {
		req.Content = strings.NewReader("content of " + req.Key + "/" + req.Slice)
	}
	res, err := f.svc.Put(context.Background(), req)
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

func (f *fixture) get(req GetRequest) *GetResult {
	f.t.Helper()
	res, err := f.svc.Get(context.Background(), req)
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

func dims(r *GetResult) []string {
	var out []string
	for _, x := range r.Reasons {
		if !slices.Contains(out, x.Dimension) {
			out = append(out, x.Dimension)
		}
	}
	return out
}

// expect checks the outcome of a lookup in each mode.
func (f *fixture) expect(typ, key string, d Digests, want map[Mode]string) {
	f.t.Helper()
	for _, m := range []Mode{Default, Strict, Relaxed} {
		w, ok := want[m]
		if !ok {
			continue
		}
		got := f.get(GetRequest{Type: typ, Key: key, Mode: m, Digests: d})
		if got.Outcome != w {
			f.t.Errorf("%s %s in %s mode: %s %v, want %s", typ, key, m, got.Outcome, got.Reasons, w)
		}
	}
}

var all = func(o string) map[Mode]string { return map[Mode]string{Default: o, Strict: o, Relaxed: o} }

func TestFileDigestInvalidatesInEveryMode(t *testing.T) {
	f := newFixture(t)
	f.put(PutRequest{Type: "file_summary", Key: "mod_a/a.go"})
	f.expect("file_summary", "mod_a/a.go", Digests{}, all(Hit))
	f.r.Write("mod_a/a.go", "package a // changed\n")
	f.expect("file_summary", "mod_a/a.go", Digests{}, all(Stale))
	got := f.get(GetRequest{Type: "file_summary", Key: "mod_a/a.go"})
	if !slices.Equal(dims(got), []string{DimFile}) || !strings.Contains(got.Reasons[0].Detail, "mod_a/a.go") {
		t.Fatalf("reasons = %+v", got.Reasons)
	}
	if got.Content != "content of mod_a/a.go/" {
		t.Fatalf("a stale artifact should return its previous content, got %q", got.Content)
	}
}

func TestCommitAndTreeOnlyCountInStrict(t *testing.T) {
	f := newFixture(t)
	f.put(PutRequest{Type: "file_summary", Key: "mod_a/a.go"})
	f.r.Write("mod_b/b.go", "package b // elsewhere\n")
	f.r.Commit("unrelated change")
	f.expect("file_summary", "mod_a/a.go", Digests{}, map[Mode]string{Default: Hit, Strict: Stale, Relaxed: Hit})
	got := f.get(GetRequest{Type: "file_summary", Key: "mod_a/a.go", Mode: Strict})
	if !slices.Equal(dims(got), []string{DimCommit, DimTree}) {
		t.Fatalf("strict reasons = %+v", got.Reasons)
	}
}

// TestSeedDependencyGraphExample is the seed's example: a new file in
// another module changes commit and tree, yet the dependency graph, whose
// inputs are unchanged, stays fresh.
func TestSeedDependencyGraphExample(t *testing.T) {
	f := newFixture(t)
	f.put(PutRequest{Type: "dependency_graph", Key: "mod_a", Deps: []string{"mod_a/a.go"}})
	f.r.Write("mod_b/new.go", "package b\n")
	f.r.Commit("new file in another module")
	f.expect("dependency_graph", "mod_a", Digests{}, map[Mode]string{Default: Hit, Strict: Stale, Relaxed: Hit})
}

func TestVersionAndDigestDimensions(t *testing.T) {
	for _, tc := range []struct {
		dim      string
		put, now Digests
	}{
		{DimAgent, Digests{AgentVersion: "1.0"}, Digests{AgentVersion: "2.0"}},
		{DimConfig, Digests{ConfigDigest: "c1"}, Digests{ConfigDigest: "c2"}},
		{DimPolicy, Digests{PolicyDigest: "p1"}, Digests{PolicyDigest: "p2"}},
		{DimEntitlement, Digests{EntitlementDigest: "e1"}, Digests{EntitlementDigest: "e2"}},
	} {
		t.Run(tc.dim, func(t *testing.T) {
			f := newFixture(t)
			f.put(PutRequest{Type: "agent_intermediate", Key: "k", Deps: []string{"mod_a/a.go"}, Digests: tc.put})
			f.expect("agent_intermediate", "k", tc.put, all(Hit))
			f.expect("agent_intermediate", "k", Digests{}, all(Hit)) // not vouched for: not compared
			f.expect("agent_intermediate", "k", tc.now, map[Mode]string{Default: Stale, Strict: Stale, Relaxed: Hit})
			if got := f.get(GetRequest{Type: "agent_intermediate", Key: "k", Digests: tc.now}); !slices.Equal(dims(got), []string{tc.dim}) {
				t.Fatalf("reasons = %+v", got.Reasons)
			}
		})
	}
}

func TestRepoMapDependsOnPathSet(t *testing.T) {
	f := newFixture(t)
	f.put(PutRequest{Type: "repo_map", Key: "root"})
	f.r.Write("mod_a/a.go", "package a // content only\n")
	f.expect("repo_map", "root", Digests{}, all(Hit))
	f.r.Write("mod_c/c.go", "package c\n")
	f.expect("repo_map", "root", Digests{}, all(Stale))
	if got := f.get(GetRequest{Type: "repo_map", Key: "root"}); !slices.Equal(dims(got), []string{DimPathSet}) {
		t.Fatalf("reasons = %+v", got.Reasons)
	}
}

// Outside git the path set is the walked tree: a file added or removed
// makes a repo map stale as it does in a repository, and a tree too large
// to list is never a hit on its account.
func TestRepoMapDependsOnPathSetOutsideGit(t *testing.T) {
	r := testgit.Plain(t, t.TempDir())
	r.Write("a.go", "package a\n")
	r.Write("sub/b.go", "package b\n")
	f := newFixtureAt(t, r, filepath.Join(t.TempDir(), "freshctx.db"))
	f.put(PutRequest{Type: "repo_map", Key: "root"})
	f.expect("repo_map", "root", Digests{}, all(Hit))
	r.Write("sub/c.go", "package c\n")
	f.expect("repo_map", "root", Digests{}, all(Stale))
	r.Remove("sub/c.go")
	f.expect("repo_map", "root", Digests{}, all(Hit))
	r.Write(".freshctx/freshctx.db", "the store's own writes")
	r.Write(".git/HEAD", "not a repository")
	f.expect("repo_map", "root", Digests{}, all(Hit))

	defer func(n int) { maxPathSetFiles = n }(maxPathSetFiles)
	maxPathSetFiles = 1
	f.put(PutRequest{Type: "repo_map", Key: "root"})
	got := f.get(GetRequest{Type: "repo_map", Key: "root"})
	if got.Outcome != Stale || !strings.Contains(fmt.Sprint(got.Reasons), "not listed (more than 1 entries)") {
		t.Fatalf("a tree over the limit: %s %+v", got.Outcome, got.Reasons)
	}
}

func TestIdenticalTreeIsSharedAcrossRefs(t *testing.T) {
	f := newFixture(t)
	f.put(PutRequest{Type: "dependency_graph", Key: "mod_a", Deps: []string{"mod_a/a.go"}})
	f.r.Git("checkout", "-q", "-b", "feature")
	got := f.get(GetRequest{Type: "dependency_graph", Key: "mod_a"})
	if got.Outcome != Hit || !got.SharedTree || got.Ref != "main" {
		t.Fatalf("on an identical tree: %+v", got)
	}
	if got := f.get(GetRequest{Type: "dependency_graph", Key: "mod_a", Mode: Strict}); got.Outcome != Cold {
		t.Fatalf("strict shares nothing across refs: %+v", got)
	}
	f.r.Write("mod_b/b.go", "package b // feature\n")
	f.r.Commit("diverge")
	if got := f.get(GetRequest{Type: "dependency_graph", Key: "mod_a"}); got.Outcome != Cold {
		t.Fatalf("another tree on another ref: %+v", got)
	}
	f.r.Git("checkout", "-q", "main")
	if got := f.get(GetRequest{Type: "dependency_graph", Key: "mod_a"}); got.Outcome != Hit || got.SharedTree {
		t.Fatalf("back on main: %+v", got)
	}
}

func TestRepositoriesNeverShare(t *testing.T) {
	db := filepath.Join(t.TempDir(), "shared.db")
	a := newFixtureAt(t, repoWith(t, "one"), db)
	b := newFixtureAt(t, repoWith(t, "two"), db)
	a.put(PutRequest{Type: "tool_result", Key: "lint", Deps: []string{"x.go"}})
	if got := b.get(GetRequest{Type: "tool_result", Key: "lint"}); got.Outcome != Cold {
		t.Fatalf("another repository's artifact answered: %+v", got)
	}
	if got := a.get(GetRequest{Type: "tool_result", Key: "lint"}); got.Outcome != Hit {
		t.Fatalf("own artifact: %+v", got)
	}
}

func repoWith(t *testing.T, content string) *testgit.Repo {
	r := testgit.New(t)
	r.Write("x.go", "package x // "+content+"\n")
	r.Commit(content)
	return r
}

func TestTTLPerTypeAndPerPut(t *testing.T) {
	f := newFixture(t)
	f.put(PutRequest{Type: "recent_change_summary", Key: "last-week"})
	f.put(PutRequest{Type: "tool_result", Key: "short", Deps: []string{"mod_a/a.go"}, TTL: time.Hour})
	f.put(PutRequest{Type: "tool_result", Key: "forever", Deps: []string{"mod_a/a.go"}})
	f.clock = f.clock.Add(2 * time.Hour)
	f.expect("tool_result", "short", Digests{}, all(Stale))
	f.expect("recent_change_summary", "last-week", Digests{}, all(Hit))
	f.clock = f.clock.Add(7 * 24 * time.Hour)
	f.expect("recent_change_summary", "last-week", Digests{}, all(Stale))
	f.expect("tool_result", "forever", Digests{}, all(Hit))
	if got := f.get(GetRequest{Type: "tool_result", Key: "short"}); !slices.Equal(dims(got), []string{DimTTL}) {
		t.Fatalf("reasons = %+v", got.Reasons)
	}
}

func TestChangeSummaryIsStaleOnANewCommit(t *testing.T) {
	f := newFixture(t)
	f.put(PutRequest{Type: "recent_change_summary", Key: "HEAD~5..HEAD"})
	f.r.Write("mod_b/b.go", "package b // new\n")
	f.r.Commit("new work")
	f.expect("recent_change_summary", "HEAD~5..HEAD", Digests{}, all(Stale))
}

func TestInvalidateByPrefixTypeAndKey(t *testing.T) {
	f := newFixture(t)
	f.r.Write("mod_a.go", "package demo\n")
	f.r.Commit("a file beside the folder")
	f.put(PutRequest{Type: "dependency_graph", Key: "a", Deps: []string{"mod_a/a.go"}})
	f.put(PutRequest{Type: "dependency_graph", Key: "b", Deps: []string{"mod_b/b.go"}})
	f.put(PutRequest{Type: "tool_result", Key: "a", Deps: []string{"mod_a/a.go"}})
	res, err := f.svc.Invalidate(context.Background(), InvalidateRequest{PathPrefix: "mod_a"})
	if err != nil || res.Invalidated != 2 {
		t.Fatalf("invalidate = %+v, %v", res, err)
	}
	f.expect("dependency_graph", "a", Digests{}, all(Stale))
	f.expect("tool_result", "a", Digests{}, all(Stale))
	f.expect("dependency_graph", "b", Digests{}, all(Hit))
	if got := f.get(GetRequest{Type: "dependency_graph", Key: "a"}); !slices.Equal(dims(got), []string{DimInvalidated}) {
		t.Fatalf("reasons = %+v", got.Reasons)
	}
	f.put(PutRequest{Type: "dependency_graph", Key: "a", Deps: []string{"mod_a/a.go"}})
	f.expect("dependency_graph", "a", Digests{}, all(Hit))
	if res, _ := f.svc.Invalidate(context.Background(), InvalidateRequest{Type: "dependency_graph", Key: "b"}); res.Invalidated != 1 {
		t.Fatalf("by type and key: %+v", res)
	}
	if _, err := f.svc.Invalidate(context.Background(), InvalidateRequest{}); err == nil {
		t.Fatal("an invalidation without a selector was accepted")
	}
	// A prefix is text: src/auth selects src/auth.go; a trailing slash
	// keeps to the folder.
	f.put(PutRequest{Type: "file_summary", Key: "mod_a.go", Deps: []string{"mod_a.go"}})
	if res, _ := f.svc.Invalidate(context.Background(), InvalidateRequest{PathPrefix: "mod_a/"}); res.Invalidated != 2 {
		t.Fatalf("folder prefix: %+v", res)
	}
	f.expect("file_summary", "mod_a.go", Digests{}, all(Hit))
	if res, _ := f.svc.Invalidate(context.Background(), InvalidateRequest{PathPrefix: "mod_a"}); res.Invalidated != 3 {
		t.Fatalf("text prefix: %+v", res)
	}
	f.expect("file_summary", "mod_a.go", Digests{}, all(Stale))
	if res, _ := f.svc.Invalidate(context.Background(), InvalidateRequest{PathPrefix: "mod_"}); res.Invalidated != 4 {
		t.Fatalf("text prefix of two folders and a file: %+v", res)
	}
}

// An artifact whose input is a folder is invalidated by a prefix under it:
// the folder holds what the prefix names.
func TestInvalidateReachesFolderInputs(t *testing.T) {
	f := newFixture(t)
	f.put(PutRequest{Type: "tool_result", Key: "folder", Deps: []string{"mod_a"}})
	f.put(PutRequest{Type: "tool_result", Key: "root", Deps: []string{"."}})
	f.put(PutRequest{Type: "tool_result", Key: "other", Deps: []string{"mod_b"}})
	f.put(PutRequest{Type: "tool_result", Key: "sibling", Deps: []string{"README.md"}})
	res, err := f.svc.Invalidate(context.Background(), InvalidateRequest{PathPrefix: "mod_a/a.go"})
	if err != nil || res.Invalidated != 2 {
		t.Fatalf("invalidate = %+v, %v", res, err)
	}
	f.expect("tool_result", "folder", Digests{}, all(Stale))
	f.expect("tool_result", "root", Digests{}, all(Stale))
	f.expect("tool_result", "other", Digests{}, all(Hit))
	f.expect("tool_result", "sibling", Digests{}, all(Hit))
}

func TestSlicesAreJudgedOneByOne(t *testing.T) {
	f := newFixture(t)
	for i := range 20 {
		f.r.Write(fmt.Sprintf("pkg/f%02d.go", i), fmt.Sprintf("package pkg // %d\n", i))
	}
	f.r.Commit("twenty files")
	for i := range 20 {
		p := fmt.Sprintf("pkg/f%02d.go", i)
		f.put(PutRequest{Type: "repo_map", Key: "pkg", Slice: p, Deps: []string{p}})
	}
	for _, i := range []int{3, 7, 11, 15, 19} {
		f.r.Write(fmt.Sprintf("pkg/f%02d.go", i), "package pkg // edited\n")
	}
	got := f.get(GetRequest{Type: "repo_map", Key: "pkg"})
	if got.Outcome != Stale || len(got.Slices) != 20 {
		t.Fatalf("outcome %s with %d slices", got.Outcome, len(got.Slices))
	}
	var stale []string
	for _, s := range got.Slices {
		if !s.Fresh {
			stale = append(stale, s.Name)
			if s.Content != "content of pkg/"+s.Name {
				t.Fatalf("stale slice %s lost its previous content: %q", s.Name, s.Content)
			}
		}
	}
	if want := []string{"pkg/f03.go", "pkg/f07.go", "pkg/f11.go", "pkg/f15.go", "pkg/f19.go"}; !slices.Equal(stale, want) {
		t.Fatalf("stale slices = %v, want %v", stale, want)
	}
}

func TestStatsArithmetic(t *testing.T) {
	f := newFixture(t)
	start := f.clock
	f.get(GetRequest{Type: "tool_result", Key: "k"}) // cold at +0
	f.clock = f.clock.Add(2 * time.Second)
	f.put(PutRequest{Type: "tool_result", Key: "k", Deps: []string{"mod_a/a.go"}}) // regenerated in 2 s
	f.get(GetRequest{Type: "tool_result", Key: "k"})                               // hit
	f.r.Write("mod_a/a.go", "package a // changed\n")
	f.clock = f.clock.Add(time.Minute)
	f.get(GetRequest{Type: "tool_result", Key: "k"}) // stale at +62 s
	f.get(GetRequest{Type: "tool_result", Key: "k"}) // stale again: the first miss counts
	f.clock = f.clock.Add(5 * time.Second)
	f.put(PutRequest{Type: "tool_result", Key: "k", Deps: []string{"mod_a/a.go"}}) // 5 s after the first miss
	st, err := f.svc.Stats(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if st.Hits != 1 || st.StaleMisses != 2 || st.ColdMisses != 1 {
		t.Fatalf("counts = %+v", st)
	}
	if st.HitRate != 0.25 || st.StaleMissRate != 0.5 || st.ColdMissRate != 0.25 {
		t.Fatalf("rates = %+v", st)
	}
	if l := st.RegenLatency; l.Count != 2 || l.P50 != 2000 || l.P95 != 5000 || l.Sum != 7000 {
		t.Fatalf("latency = %+v", l)
	}
	// The last 10 s hold the two stale misses and the put that answered them.
	win, _ := f.svc.Stats(context.Background(), 10*time.Second)
	if win.Hits != 0 || win.StaleMisses != 2 || win.ColdMisses != 0 || win.RegenLatency.Count != 1 || win.RegenLatency.P50 != 5000 {
		t.Fatalf("window = %+v", win)
	}
	// The last 3 s hold only the put; its miss began before the window.
	win, _ = f.svc.Stats(context.Background(), 3*time.Second)
	if win.Hits+win.StaleMisses+win.ColdMisses != 0 || win.RegenLatency.Count != 1 || win.Since.Before(start) {
		t.Fatalf("window = %+v", win)
	}
}

func TestColdAndUnknownTypes(t *testing.T) {
	f := newFixture(t)
	if got := f.get(GetRequest{Type: "my_own_type", Key: "x"}); got.Outcome != Cold {
		t.Fatalf("%+v", got)
	}
	f.put(PutRequest{Type: "my_own_type", Key: "x"})
	f.expect("my_own_type", "x", Digests{}, map[Mode]string{Default: Hit, Relaxed: Hit})
}

func TestPutRefusesMissingAndOutsideDeps(t *testing.T) {
	f := newFixture(t)
	for _, dep := range []string{"nope.go", "../outside.go"} {
		if _, err := f.svc.Put(context.Background(), PutRequest{Type: "tool_result", Key: "k", Deps: []string{dep}}); err == nil {
			t.Errorf("dep %s accepted", dep)
		}
	}
}

// A dep that links outside the root is stored, but the put says the
// artifact will never be a hit, and the get says why.
func TestPutWarnsOfDepsThatCannotBeTrusted(t *testing.T) {
	f := newFixture(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, f.r.Path("link.txt")); err != nil {
		t.Fatal(err)
	}
	res := f.put(PutRequest{Type: "tool_result", Key: "k", Deps: []string{"link.txt", "README.md"}})
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "--dep link.txt: links outside the workspace root") {
		t.Fatalf("warnings = %q", res.Warnings)
	}
	sl, err := f.svc.PutSlices(context.Background(), PutRequest{Type: "repo_map", Key: "root"},
		[]SliceInput{{Name: "a", Deps: []string{"README.md"}}, {Name: "b", Deps: []string{"link.txt"}}})
	if err != nil || len(sl.Warnings) != 1 || !strings.HasPrefix(sl.Warnings[0], `slice "b": --dep link.txt`) {
		t.Fatalf("slices: %v, warnings %q", err, sl.Warnings)
	}
	if res := f.put(PutRequest{Type: "tool_result", Key: "fine", Deps: []string{"README.md"}}); res.Warnings != nil {
		t.Fatalf("a plain dep warned: %q", res.Warnings)
	}
	f.expect("tool_result", "k", Digests{}, all(Stale))
}

// TestPrometheusExposition checks the text format's rules: every sample
// belongs to a metric family declared by HELP and TYPE lines before it,
// names and values are well formed, and the summary has its quantiles,
// sum and count.
func TestPrometheusExposition(t *testing.T) {
	st := &Stats{Hits: 3, StaleMisses: 1, ColdMisses: 0, HitRate: 0.75, StaleMissRate: 0.25,
		RegenLatency: Latency{P50: 1500, P95: 4000, Count: 2, Sum: 5500}}
	var b strings.Builder
	if err := st.WritePrometheus(&b); err != nil {
		t.Fatal(err)
	}
	sample := regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*"\})? (\S+)$`)
	types := map[string]string{}
	helped := map[string]bool{}
	values := map[string]float64{}
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "# HELP "):
			helped[strings.Fields(line)[2]] = true
		case strings.HasPrefix(line, "# TYPE "):
			f := strings.Fields(line)
			if len(f) != 4 || !slices.Contains([]string{"counter", "gauge", "summary"}, f[3]) {
				t.Fatalf("bad TYPE line %q", line)
			}
			types[f[2]] = f[3]
		default:
			m := sample.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("bad sample line %q", line)
			}
			family := strings.TrimSuffix(strings.TrimSuffix(m[1], "_sum"), "_count")
			if types[family] == "" || !helped[family] {
				t.Fatalf("sample %q before its HELP and TYPE", line)
			}
			v, err := strconv.ParseFloat(m[3], 64)
			if err != nil {
				t.Fatalf("bad value in %q", line)
			}
			values[m[1]+m[2]] = v
		}
	}
	want := map[string]float64{
		`freshctx_artifact_lookups_total{outcome="hit"}`:           3,
		`freshctx_artifact_hit_ratio`:                              0.75,
		`freshctx_artifact_regen_latency_seconds{quantile="0.95"}`: 4,
		`freshctx_artifact_regen_latency_seconds_sum`:              5.5,
		`freshctx_artifact_regen_latency_seconds_count`:            2,
	}
	for k, v := range want {
		if values[k] != v {
			t.Errorf("%s = %v, want %v", k, values[k], v)
		}
	}
}

func TestLargeContentGoesToTheBlobArea(t *testing.T) {
	f := newFixture(t)
	big := strings.Repeat("a line of a large repo map\n", 2000)
	f.put(PutRequest{Type: "repo_map", Key: "big", Content: strings.NewReader(big)})
	if got := f.get(GetRequest{Type: "repo_map", Key: "big"}); got.Content != big {
		t.Fatalf("content of %d bytes came back as %d", len(big), len(got.Content))
	}
	var blobs int
	f.svc.Store.DB().QueryRow("SELECT count(*) FROM artifacts WHERE content_blob IS NOT NULL").Scan(&blobs)
	if blobs != 1 {
		t.Fatalf("%d artifacts in the blob area, want 1", blobs)
	}
	// Replacing it frees the blob.
	f.put(PutRequest{Type: "repo_map", Key: "big", Content: strings.NewReader("small now")})
	f.svc.Store.DB().QueryRow("SELECT count(*) FROM blobs").Scan(&blobs)
	if blobs != 0 {
		t.Fatalf("%d blobs left after replacing the only large content", blobs)
	}
}

func TestParseTTL(t *testing.T) {
	for in, want := range map[string]time.Duration{"": 0, "0": -1, "12h": 12 * time.Hour, "7d": 7 * 24 * time.Hour} {
		if got, err := ParseTTL(in); err != nil || got != want {
			t.Errorf("ParseTTL(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseTTL("soon"); err == nil {
		t.Error("a bad TTL was accepted")
	}
}
