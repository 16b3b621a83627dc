package artifact

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/testrace"
	"github.com/freshctx/freshctx/internal/workspace"
)

// isolateGitConfig gives the test's git processes a global configuration
// and excludes file of their own, returned for the test to write.
func isolateGitConfig(t *testing.T) (globalConfig, excludes string) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "gitconfig"))
	if err := os.MkdirAll(filepath.Join(home, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(home, "gitconfig"), filepath.Join(home, "git", "ignore")
}

// proofService is a service on a store in the tree's own store folder
// (ignored by git, as freshctx sets it up), every fingerprint settled past
// 1 ns: the file clock's tick, not a window, then stands between a change
// and the proof that must see it.
func proofService(tb testing.TB, dir string) (*Service, error) {
	ws, err := workspace.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := ws.ExcludeFromGit(store.DirName); err != nil {
		return nil, err
	}
	st, err := store.Open(context.Background(), store.DefaultPath(ws.Root), store.Options{})
	if err != nil {
		return nil, err
	}
	tb.Cleanup(func() { st.Close() })
	return &Service{WS: ws, Store: st, Cwd: dir, RacyWindow: time.Nanosecond}, nil
}

// prove lists the tree and keeps the proof with the path set listed, as
// a put does; it reports whether it kept one.
func prove(ctx context.Context, s *Service) (bool, error) {
	l, err := s.listWithProof(ctx)
	if err != nil {
		return false, err
	}
	d, err := l.digest(ctx, nil)
	if err != nil {
		return false, err
	}
	err = s.Store.Update(ctx, func(tx *store.Tx) error { return s.keepProof(tx, l.proof, d) })
	return l.proof.proves(d, s.window()), err
}

// twoFiles commits two Go files and opens a proofService on them.
func twoFiles(t *testing.T, a, b string) (*testgit.Repo, *Service) {
	t.Helper()
	r := testgit.New(t)
	r.Write(a, "package a\n")
	r.Write(b, "package b\n")
	r.Commit("init")
	s, err := proofService(t, r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return r, s
}

// provenTwoFiles is twoFiles (a/x.go and b/y.go) with a proof kept, and
// the path set it proves.
func provenTwoFiles(t *testing.T) (*testgit.Repo, *Service, string) {
	t.Helper()
	r, _ := twoFiles(t, "a/x.go", "b/y.go")
	s := provenService(t, r.Dir)
	want, err := listedPathSet(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return r, s, want
}

// provenService is proofService with a proof kept, past the file clock's
// tick.
func provenService(t *testing.T, dir string) *Service {
	t.Helper()
	s, err := proofService(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if kept, err := prove(context.Background(), s); err != nil || !kept {
		t.Fatalf("no proof kept (%v)", err)
	}
	return s
}

// wantNoProof fails the test if a proof still vouches after a change.
func wantNoProof(t *testing.T, s *Service, after string) {
	t.Helper()
	if got, ok := vouches(context.Background(), s); ok {
		t.Fatalf("proof still vouches for %q after %s", got, after)
	}
}

// vouches is the path set the root's proof vouches for, if it does. A
// proof it renews is kept, as a get keeps it.
func vouches(ctx context.Context, s *Service) (string, bool) {
	d, state, renewed := s.proven(ctx)
	if renewed != nil {
		if err := s.Store.Update(ctx, func(tx *store.Tx) error { return s.keepProof(tx, renewed, d) }); err != nil {
			panic(err)
		}
	}
	return d, state == proofHolds
}

// listedPathSet is the path set as a get without a proof finds it.
func listedPathSet(ctx context.Context, s *Service) (string, error) {
	l, err := s.list(ctx)
	if err != nil {
		return "", err
	}
	return l.digest(ctx, nil)
}

// TestProofSeesWhatMovesTheListing changes, after a proof was kept, each
// thing the listing depends on. A proof that still vouches must vouch for
// the path set git lists; every change here that moves the path set must
// break it, and a change of a file's bytes alone must not.
func TestProofSeesWhatMovesTheListing(t *testing.T) {
	testrace.Skip(t, "changes a repository step by step and asks git, on one goroutine")
	for _, c := range []struct {
		name     string
		change   func(r *testgit.Repo, excludes string)
		holds    bool // the proof still vouches
		sameTree bool // the path set is unchanged
	}{
		{"a file's bytes", func(r *testgit.Repo, _ string) { r.Write("a/x.go", "package changed\n") }, true, true},
		{"a file added", func(r *testgit.Repo, _ string) { r.Write("a/b/new.go", "") }, false, false},
		{"a file added to an empty folder", func(r *testgit.Repo, _ string) { r.Write("empty/new.go", "") }, false, false},
		{"a file added to a folder of ignored files", func(r *testgit.Repo, _ string) { r.Write("logs/new.go", "") }, false, false},
		{"a tracked file deleted", func(r *testgit.Repo, _ string) { os.Remove(r.Path("a/b/y.go")) }, false, false},
		{"a .gitignore edited in place", func(r *testgit.Repo, _ string) { r.Write(".gitignore", "*.tmp\nbuild/\n") }, false, false},
		{"a nested .gitignore edited in place", func(r *testgit.Repo, _ string) { r.Write("a/.gitignore", "x.go\n") }, false, false},
		{"info/exclude edited", func(r *testgit.Repo, _ string) {
			f, _ := os.OpenFile(filepath.Join(r.Dir, ".git", "info", "exclude"), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("u/\n")
			f.Close()
		}, false, false},
		{"the global excludes file edited", func(_ *testgit.Repo, excludes string) {
			os.WriteFile(excludes, []byte("*.txt\n"), 0o644)
		}, false, false},
		{"core.excludesFile set", func(r *testgit.Repo, _ string) {
			other := filepath.Join(r.Dir, ".git", "more-excludes")
			os.WriteFile(other, []byte("u/\n"), 0o644)
			r.Git("config", "core.excludesFile", other)
		}, false, false},
		{"core.ignoreCase set", func(r *testgit.Repo, _ string) { r.Git("config", "core.ignoreCase", "true") }, false, false},
		{"an ignored file added to the index", func(r *testgit.Repo, _ string) { r.Git("add", "-f", "logs/run.log") }, false, false},
		{"a file added in an ignored folder", func(r *testgit.Repo, _ string) { r.Write("build/out.go", "") }, true, true},
		{"a folder added in an ignored folder", func(r *testgit.Repo, _ string) { r.Write("build/x/y/out.go", "") }, true, true},
		{"an ignored folder un-ignored", func(r *testgit.Repo, _ string) { r.Write(".gitignore", "*.log\n#uild/\n") }, false, false},
		{"a file added in an ignored folder with a tracked file", func(r *testgit.Repo, _ string) { r.Write("vendor/new.go", "") }, false, true},
		{"a tracked file deleted in an ignored folder", func(r *testgit.Repo, _ string) { os.Remove(r.Path("vendor/kept.go")) }, false, false},
		{"a file added in a nested repository", func(r *testgit.Repo, _ string) { r.Write("nested/inner2.go", "") }, false, true},
		{"a file added below a folder whose .git is no repository", func(r *testgit.Repo, _ string) { r.Write("fake/sub/b.go", "") }, false, false},
		// Whether a folder is a nested repository depends on what its .git
		// holds: without HEAD it is none, and git lists its files.
		{"an untracked nested repository's HEAD removed", func(r *testgit.Repo, _ string) { os.Remove(r.Path("inner/.git/HEAD")) }, false, false},
		{"an untracked nested repository's HEAD rewritten in place", func(r *testgit.Repo, _ string) {
			f, _ := os.OpenFile(r.Path("inner/.git/HEAD"), os.O_WRONLY|os.O_TRUNC, 0)
			f.WriteString("not a ref\n")
			f.Close()
		}, false, false},
		{"a folder's .git file made a repository", func(r *testgit.Repo, _ string) {
			os.Remove(r.Path("fake/.git"))
			testgit.Init(t, r.Path("fake"))
		}, false, false},
		{"the store written", func(r *testgit.Repo, _ string) { r.Write(".freshctx/scratch", "") }, true, true},
		{"the index rewritten with the same files", func(r *testgit.Repo, _ string) {
			r.Write("a/x.go", "package changed\n")
			r.Git("add", "a/x.go")
		}, true, true},
		{"a change committed", func(r *testgit.Repo, _ string) {
			r.Write("a/x.go", "package changed\n")
			r.Git("commit", "-q", "-am", "change")
		}, true, true},
		{"a file taken out of the index, kept in the tree", func(r *testgit.Repo, _ string) { r.Git("rm", "-q", "--cached", "a/x.go") }, false, true},
		{"the index deleted", func(r *testgit.Repo, _ string) { os.Remove(r.Path(".git/index")) }, false, false},
		{"a file saved by renaming another over it", func(r *testgit.Repo, _ string) {
			r.Write("a/.x.go.swp", "package saved\n")
			os.Rename(r.Path("a/.x.go.swp"), r.Path("a/x.go"))
		}, true, true},
		{"a temporary file come and gone", func(r *testgit.Repo, _ string) {
			r.Write("a/b/tmp", "")
			os.Remove(r.Path("a/b/tmp"))
		}, true, true},
		{"a file deleted and written again", func(r *testgit.Repo, _ string) {
			os.Remove(r.Path("a/x.go"))
			r.Write("a/x.go", "package again\n")
		}, true, true},
		{"an ignored file written beside tracked ones", func(r *testgit.Repo, _ string) { r.Write("a/debug.log", "") }, false, true},
		{"a file replaced by a folder of its name", func(r *testgit.Repo, _ string) {
			os.Remove(r.Path("a/x.go"))
			r.Write("a/x.go/inner.go", "")
		}, false, false},
		{"a folder replaced by a file of its name", func(r *testgit.Repo, _ string) {
			os.RemoveAll(r.Path("a/b"))
			r.Write("a/b", "")
		}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, excludes := isolateGitConfig(t)
			if err := os.WriteFile(excludes, []byte("*.tmp\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r := testgit.New(t)
			r.Write(".gitignore", "*.log\nbuild/\nvendor/\n")
			r.Write("vendor/kept.go", "package vendor\n") // added below despite the rule
			r.Write("a/x.go", "package a\n")
			r.Write("a/b/y.go", "package b\n")
			r.Write("logs/run.log", "")
			r.Write("build/out.o", "")
			r.Write("empty/.keep", "")
			os.Remove(r.Path("empty/.keep"))
			os.MkdirAll(r.Path("nested"), 0o755)
			sub := testgit.Init(t, r.Path("nested"))
			sub.Write("inner.go", "")
			sub.Commit("nested")
			r.Git("add", "-f", "vendor/kept.go")
			r.Commit("init")
			r.Write("u/notes.txt", "") // untracked
			r.Write("u/READ.LOG", "")  // untracked, ignored only where case is ignored
			r.Write("fake/.git", "not a repository\n")
			r.Write("fake/sub/a.go", "") // listed by git: fake is no repository
			os.MkdirAll(r.Path("inner"), 0o755)
			untracked := testgit.Init(t, r.Path("inner")) // listed as inner/: a repository
			untracked.Write("x.go", "")
			untracked.Commit("inner")
			s := provenService(t, r.Dir)
			ctx := context.Background()
			before, err := listedPathSet(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := vouches(ctx, s); !ok || got != before {
				t.Fatalf("proven = %q, %v before any change, want %q", got, ok, before)
			}
			c.change(r, excludes)
			now, err := listedPathSet(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			if (now == before) != c.sameTree {
				t.Fatalf("path set unchanged: %v, want %v: the case does not test what it says", now == before, c.sameTree)
			}
			got, ok := vouches(ctx, s)
			if ok != c.holds {
				t.Errorf("proof holds: %v, want %v", ok, c.holds)
			}
			if ok && got != now {
				t.Fatalf("proof vouches for %q, git lists %q", got, now)
			}
		})
	}
}

// TestProofWhereGitListsTheStore: a store folder git does not ignore is
// in the path set, and walked like any other: a file added to it breaks
// the proof.
func TestProofWhereGitListsTheStore(t *testing.T) {
	isolateGitConfig(t)
	r := testgit.New(t)
	r.Write("a.go", "package a\n")
	r.Write(".gitignore", "!/.freshctx/\n")
	r.Commit("init")
	s := provenService(t, r.Dir)
	r.Write(".freshctx/scratch", "")
	wantNoProof(t, s, "a file was added to the listed store folder")
}

// withinTheWindow runs trial with a racy window of 300 ms, and again with
// twice the window whenever the trial took too long from its change (the
// moment it calls changing) to the end of its checks: a machine that
// stalls that long has let the change settle, and the checks' verdict
// says nothing then. A file's time may lag the clock by a tick, hence the
// margin.
func withinTheWindow(t *testing.T, trial func(window time.Duration, changing func()) error) {
	t.Helper()
	const margin, longest = 50 * time.Millisecond, 10 * time.Second
	for window := 300 * time.Millisecond; window <= longest; window *= 2 {
		var began time.Time
		err := trial(window, func() { began = time.Now() })
		if began.IsZero() {
			t.Fatal("the trial never said when it made its change")
		}
		if took := time.Since(began); took > window-margin {
			t.Logf("the trial took %v from its change, past its %v window: again with twice the window", took, window)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("every trial took longer than its racy window, up to %v", longest)
}

// TestNoProofOfAnUnsettledTree: a folder or input written within the
// racy window of the walk could change again with the same fingerprint,
// so no proof is kept, and none vouches: the root, a folder below it, or
// only the index.
func TestNoProofOfAnUnsettledTree(t *testing.T) {
	isolateGitConfig(t)
	for _, c := range []struct {
		name   string
		change func(r *testgit.Repo)
	}{
		{"the root", func(r *testgit.Repo) { r.Write("new.go", "") }},
		{"a folder below it", func(r *testgit.Repo) { r.Write("a/b/new.go", "") }},
		{"the index", func(r *testgit.Repo) {
			r.Write("a/x.go", "package changed\n")
			r.Git("add", "a/x.go")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			withinTheWindow(t, func(window time.Duration, changing func()) error {
				r, s := twoFiles(t, "a/x.go", "a/b/y.go")
				s.RacyWindow = window
				time.Sleep(window + 50*time.Millisecond)
				changing()
				c.change(r)
				ctx := context.Background()
				if kept, err := prove(ctx, s); err != nil || kept {
					return fmt.Errorf("kept = %v (%v), want no proof", kept, err)
				}
				if got, ok := vouches(ctx, s); ok {
					return fmt.Errorf("proof vouches for %q", got)
				}
				return nil
			})
		})
	}
}

// TestProofInASubfolderRoot: a workspace below the top also depends on
// the .gitignore files above it.
func TestProofInASubfolderRoot(t *testing.T) {
	isolateGitConfig(t)
	r := testgit.New(t)
	r.Write("svc/a.go", "package a\n")
	r.Write("svc/b.log", "")
	r.Write(".gitignore", "*.log\n")
	r.Commit("init")
	s := provenService(t, r.Path("svc"))
	r.Write(".gitignore", "*.tmp\n")
	wantNoProof(t, s, "the top's .gitignore changed")
}

// TestProofNeverWrong is the model-based check of the proof: after random
// writes, removals, folders, renames, ignore rules (in .gitignore files,
// info/exclude, the global excludes file and core.excludesFile), index
// changes (the index rewritten with the same files among them), commits,
// nested repositories, files saved by rename, temporary files come and
// gone, proofs kept and renewed at random moments and time passing, a
// proof that vouches for a path set vouches for the one git lists.
func TestProofNeverWrong(t *testing.T) {
	testrace.Skip(t, "changes a repository step by step and asks git, on one goroutine")
	_, excludes := isolateGitConfig(t)
	dirs := []string{".", "a", "a/b", "e", "build", "n"}
	names := []string{"x.go", "y.log", ".gitignore"}
	rules := []string{"", "*.log\n", "build/\n", "!y.log\n", "x.go\n", "*\n", "a/\n"}
	ctx := context.Background()
	vouched := 0
	rapid.Check(t, func(rt *rapid.T) {
		r := testgit.Init(rt, t.TempDir())
		r.Write(".gitignore", "*.log\nbuild/\n")
		r.Write("a/x.go", "a")
		r.Commit("init")
		os.WriteFile(excludes, nil, 0o644)
		s, err := proofService(t, r.Dir)
		if err != nil {
			rt.Fatal(err)
		}
		check := func() {
			got, ok := vouches(ctx, s)
			if !ok {
				return
			}
			vouched++
			want, err := listedPathSet(ctx, s)
			if err != nil {
				rt.Fatal(err)
			}
			if got != want {
				rt.Fatalf("the proof vouches for path set %s, git lists %s", got, want)
			}
		}
		steps := 12
		if testing.Short() {
			steps = 6
		}
		for range rapid.IntRange(1, steps).Draw(rt, "steps") {
			dir := rapid.SampledFrom(dirs).Draw(rt, "dir")
			name := rapid.SampledFrom(names).Draw(rt, "name")
			rel := filepath.Join(dir, name)
			rule := rapid.SampledFrom(rules).Draw(rt, "rule")
			switch rapid.IntRange(0, 16).Draw(rt, "action") {
			case 0:
				content := "x"
				if name == ".gitignore" {
					content = rule
				}
				os.MkdirAll(r.Path(dir), 0o755)
				os.WriteFile(r.Path(rel), []byte(content), 0o644)
			case 1:
				os.Remove(r.Path(rel))
			case 2:
				os.MkdirAll(r.Path(dir), 0o755)
			case 3:
				if dir != "." {
					os.RemoveAll(r.Path(dir))
				}
			case 4:
				os.Rename(r.Path(rel), r.Path(filepath.Join(dir, "z.go")))
			case 5:
				os.WriteFile(filepath.Join(r.Dir, ".git", "info", "exclude"), []byte("/.freshctx/\n"+rule), 0o644)
			case 6:
				os.WriteFile(excludes, []byte(rule), 0o644)
			case 7:
				other := filepath.Join(r.Dir, ".git", "other-excludes")
				os.WriteFile(other, []byte(rule), 0o644)
				r.Git("config", "core.excludesFile", other)
			case 8:
				if _, err := os.Lstat(r.Path(rel)); err == nil {
					r.Git("add", "-f", "--", rel)
				}
			case 9:
				r.Git("rm", "-q", "-r", "--cached", "--ignore-unmatch", "--", rel)
			case 10:
				os.MkdirAll(r.Path("n/sub"), 0o755)
				if _, err := os.Stat(r.Path("n/sub/.git")); err != nil {
					sub := testgit.Init(rt, r.Path("n/sub"))
					sub.Write("first.go", "")
					sub.Commit("nested")
				}
				os.WriteFile(r.Path("n/sub/"+name), []byte("x"), 0o644)
			case 11:
				r.Git("add", "-A")
				r.Git("commit", "-q", "--allow-empty", "-m", "step")
			case 12:
				if _, err := prove(ctx, s); err != nil {
					rt.Fatal(err)
				}
			case 13: // the index rewritten with the same files, mostly
				if _, err := os.Lstat(r.Path(rel)); err == nil {
					os.WriteFile(r.Path(rel), []byte(name+" changed"), 0o644)
					r.Git("add", "-f", "--", rel)
				}
			case 14: // the file clock ticks: what changed is settled, a proof can be renewed
				time.Sleep(10 * time.Millisecond)
			case 15: // saved by renaming another file over it, as editors save
				if fi, err := os.Lstat(r.Path(rel)); err == nil && fi.Mode().IsRegular() {
					os.WriteFile(r.Path(rel)+".tmp", []byte("saved"), 0o644)
					os.Rename(r.Path(rel)+".tmp", r.Path(rel))
				}
			case 16: // a temporary file come and gone
				if fi, err := os.Stat(r.Path(dir)); err == nil && fi.IsDir() {
					os.WriteFile(r.Path(dir+"/scratch"), nil, 0o644)
					os.Remove(r.Path(dir + "/scratch"))
				}
			}
			check()
		}
		// Last, a proof kept once the clock has moved past every change:
		// each run puts a proof to the test at least here, whatever the
		// steps drawn.
		time.Sleep(20 * time.Millisecond)
		if _, err := prove(ctx, s); err != nil {
			rt.Fatal(err)
		}
		check()
	})
	if vouched == 0 {
		t.Fatal("no proof ever vouched: the property was never put to the test")
	}
	t.Logf("a proof vouched %d times, each checked against git", vouched)
}

// FuzzDecodeProof: a kept proof is read back without panicking whatever
// the store holds, and what decodes encodes to itself.
func FuzzDecodeProof(f *testing.F) {
	p := &pathProof{digest: "abc", tracked: "def", at: 42, env: "HOME=true:\"/h\";", config: "core.ignorecase\ntrue\x00",
		rels: []string{".", "a b", "new\nline"}, fps: []string{"1:2:3:4:5:6", "-", "7:8:9:10:11:12"}, entries: []string{"0a1b", "-", "2c3d"},
		files: []string{"/x/.git/index"}, ffps: []string{"-"}}
	f.Add(p.encode())
	f.Add("proof3\n\n\n0\n\"\"\n\"\"\n")
	f.Fuzz(func(t *testing.T, enc string) {
		p, err := decodeProof(enc)
		if err != nil {
			return
		}
		again, err := decodeProof(p.encode())
		if err != nil {
			t.Fatalf("a decoded proof encodes to what does not decode: %v", err)
		}
		if again.encode() != p.encode() {
			t.Fatalf("round trip changed the proof:\n%q\n%q", p.encode(), again.encode())
		}
	})
}

// TestTooLargeForAProof: a tree with more folders than a proof stamps is
// marked so, gets list it without walking it again (and answer right),
// and a put tries anew.
func TestTooLargeForAProof(t *testing.T) {
	isolateGitConfig(t)
	defer func(n int) { maxProofDirs = n }(maxProofDirs)
	maxProofDirs = 2
	r, s := twoFiles(t, "a/x.go", "b/y.go")
	ctx := context.Background()
	time.Sleep(20 * time.Millisecond)
	req := PutRequest{Type: "repo_map", Key: "root", Content: strings.NewReader("the map")}
	if _, err := s.Put(ctx, req); err != nil {
		t.Fatal(err)
	}
	if _, state, _ := s.proven(ctx); state != proofTooLarge {
		t.Fatalf("state %v after a put in a tree of 3 folders with room for 2, want too large", state)
	}
	maxProofDirs = 100 // a get that walked the tree now would keep a proof
	get := func() string {
		res, err := s.Get(ctx, GetRequest{Type: "repo_map", Key: "root"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Outcome
	}
	if got := get(); got != Hit {
		t.Fatalf("get = %s, want hit", got)
	}
	r.Write("c/new.go", "package c\n")
	if got := get(); got != Stale {
		t.Fatalf("get = %s after a file was added, want stale", got)
	}
	if _, state, _ := s.proven(ctx); state != proofTooLarge {
		t.Fatalf("state %v after gets, want still too large: a get does not walk the tree again", state)
	}
	time.Sleep(20 * time.Millisecond)
	req.Content = strings.NewReader("the map again")
	if _, err := s.Put(ctx, req); err != nil {
		t.Fatal(err)
	}
	if _, state, _ := s.proven(ctx); state != proofHolds {
		t.Fatalf("state %v after a put with room, want a proof that holds", state)
	}
}

// TestProofAfterARecentChange: a proof broken within the racy window of
// now says so, and a get then only lists the tree (no new proof could be
// kept); once the change has settled, a get lists it and keeps a new one.
func TestProofAfterARecentChange(t *testing.T) {
	isolateGitConfig(t)
	ctx := context.Background()
	get := func(s *Service, want string) error {
		res, err := s.Get(ctx, GetRequest{Type: "repo_map", Key: "root"})
		if err != nil || res.Outcome != want {
			return fmt.Errorf("get = %+v, %v, want %s", res, err, want)
		}
		return nil
	}
	var r *testgit.Repo
	var s *Service
	var window time.Duration
	withinTheWindow(t, func(w time.Duration, changing func()) error {
		window = w
		r, s = twoFiles(t, "a/x.go", "a/b/y.go")
		s.RacyWindow = window
		time.Sleep(window + 50*time.Millisecond)
		req := PutRequest{Type: "repo_map", Key: "root", Content: strings.NewReader("the map")}
		if _, err := s.Put(ctx, req); err != nil {
			t.Fatal(err)
		}
		if _, state, _ := s.proven(ctx); state != proofHolds {
			t.Fatalf("state %v after the put, want a proof that holds", state)
		}
		changing()
		r.Write("a/b/new.go", "package b\n")
		if _, state, _ := s.proven(ctx); state != proofRecent {
			return fmt.Errorf("state %v right after a file was added, want recent", state)
		}
		return get(s, Stale)
	})
	time.Sleep(window + 50*time.Millisecond)
	if _, state, _ := s.proven(ctx); state != proofBroken {
		t.Fatalf("state %v once the change settled, want broken", state)
	}
	if err := get(s, Stale); err != nil { // lists the tree, and keeps a proof of what it listed
		t.Fatal(err)
	}
	if _, state, _ := s.proven(ctx); state != proofHolds {
		t.Fatalf("state %v after a get listed the settled tree, want a proof that holds", state)
	}
}

// After git rewrote the index with the same files, a proof is checked by
// one listing of the index's files, with no walk for untracked files, and
// renewed with the index's new fingerprint once that is settled: the next
// check lists nothing at all. A get keeps the renewed proof.
func TestProofRenewedAfterTheIndexMoved(t *testing.T) {
	isolateGitConfig(t)
	r, s, want := provenTwoFiles(t)
	var mu sync.Mutex // git runs on more than one goroutine
	var asked []string
	run := s.WS.Git.Run
	s.WS.Git.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		mu.Lock()
		asked = append(asked, strings.Join(args, " "))
		mu.Unlock()
		return run(ctx, dir, args...)
	}
	listings := func() (cached, others int) {
		mu.Lock()
		defer mu.Unlock()
		for _, a := range asked {
			cached += strings.Count(a, "ls-files -z --cached")
			others += strings.Count(a, "--others")
		}
		asked = nil
		return cached, others
	}
	ctx := context.Background()
	if _, err := s.PutSlices(ctx, PutRequest{Type: "repo_map", Key: "root"},
		[]SliceInput{{Name: "b/y.go", Deps: []string{"b/y.go"}, Content: "b"}}); err != nil {
		t.Fatal(err)
	}
	r.Write("a/x.go", "package changed\n")
	r.Git("add", "a/x.go")
	time.Sleep(20 * time.Millisecond) // the index settles: the window is 1 ns, the clock's tick is coarser
	listings()
	got, state, renewed := s.proven(ctx)
	if state != proofHolds || got != want || renewed == nil {
		t.Fatalf("after the index moved: %q %v renewed %v, want %q holds, renewed", got, state, renewed != nil, want)
	}
	if cached, others := listings(); cached != 1 || others != 0 {
		t.Fatalf("the check listed the index %d times and the tree %d times, want once and never", cached, others)
	}
	res, err := s.Get(ctx, GetRequest{Type: "repo_map", Key: "root"}) // keeps what it renews
	if err != nil || res.Outcome != Hit {
		t.Fatalf("get: %v, %v", res, err)
	}
	listings()
	got, state, renewed = s.proven(ctx)
	if state != proofHolds || got != want || renewed != nil {
		t.Fatalf("after the proof was renewed: %q %v renewed %v", got, state, renewed != nil)
	}
	if cached, others := listings(); cached != 0 || others != 0 {
		t.Fatalf("a renewed proof listed the index %d times and the tree %d times, want none", cached, others)
	}
}

// A proof is renewed only with an index fingerprint that is settled and
// that the index's listing read: not when the index was written within
// the racy window before the check, nor when it was written again while
// its files were listed. Either way the proof still holds for this check.
func TestProofNotRenewedFromAMovingIndex(t *testing.T) {
	isolateGitConfig(t)
	for _, c := range []struct {
		name   string
		window time.Duration
		during func(r *testgit.Repo)
	}{
		{"written within the racy window", time.Hour, nil},
		{"written while its files were listed", time.Nanosecond, func(r *testgit.Repo) {
			r.Write("b/y.go", "package changed\n")
			r.Git("add", "b/y.go")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, s, want := provenTwoFiles(t)
			ctx := context.Background()
			r.Write("a/x.go", "package changed\n")
			r.Git("add", "a/x.go")
			time.Sleep(20 * time.Millisecond)
			s.RacyWindow = c.window
			run := s.WS.Git.Run
			s.WS.Git.Run = func(ctx context.Context, dir string, args ...string) ([]byte, error) {
				out, err := run(ctx, dir, args...)
				if c.during != nil && strings.Contains(strings.Join(args, " "), "ls-files -z --cached") {
					c.during(r)
				}
				return out, err
			}
			got, state, renewed := s.proven(ctx)
			if state != proofHolds || got != want {
				t.Fatalf("%q %v, want %q holds", got, state, want)
			}
			if renewed != nil {
				t.Fatal("renewed with an index fingerprint the listing may not have read")
			}
		})
	}
}

// A folder whose fingerprint moved while its entries stayed the same (a
// file saved by renaming another over it) keeps the proof holding, and
// renews it with the folder's new fingerprint once that is settled: the
// next check finds every fingerprint equal. Within the racy window the
// proof holds without being renewed.
func TestProofRenewsAFolderOfTheSameEntries(t *testing.T) {
	isolateGitConfig(t)
	r, s, want := provenTwoFiles(t)
	ctx := context.Background()
	save := func() {
		r.Write("a/.x.go.tmp", "package saved\n")
		if err := os.Rename(r.Path("a/.x.go.tmp"), r.Path("a/x.go")); err != nil {
			t.Fatal(err)
		}
	}
	save()
	s.RacyWindow = time.Hour
	if got, state, renewed := s.proven(ctx); state != proofHolds || got != want || renewed != nil {
		t.Fatalf("within the racy window: %q %v renewed %v, want %q holds, not renewed", got, state, renewed != nil, want)
	}
	s.RacyWindow = time.Nanosecond
	time.Sleep(20 * time.Millisecond)
	got, state, renewed := s.proven(ctx)
	if state != proofHolds || got != want || renewed == nil {
		t.Fatalf("once settled: %q %v renewed %v, want %q holds, renewed", got, state, renewed != nil, want)
	}
	a := slices.Index(renewed.rels, "a")
	if fp, err := freshness.FingerprintFile(r.Path("a")); err != nil || renewed.fps[a] != fp.String() {
		t.Fatalf("renewed with %s for a, which is %s (%v) now", renewed.fps[a], fp, err)
	}
	if err := s.Store.Update(ctx, func(tx *store.Tx) error { return s.keepProof(tx, renewed, got) }); err != nil {
		t.Fatal(err)
	}
	if got, state, renewed := s.proven(ctx); state != proofHolds || got != want || renewed != nil {
		t.Fatalf("after the renewal: %q %v renewed %v", got, state, renewed != nil)
	}
}

// TestNoProofWhereGitReadsAnIgnoreFileFromTheIndex: in a sparse checkout
// git reads a .gitignore that is not checked out from the index, where no
// fingerprint of the work tree sees it change; a fast-forward that changes
// only that file changes the path set. No proof is kept for such a tree:
// the get lists it.
func TestNoProofWhereGitReadsAnIgnoreFileFromTheIndex(t *testing.T) {
	isolateGitConfig(t)
	r := testgit.New(t)
	r.Write("d/.gitignore", "*.log\n")
	r.Write("d/a.go", "package d\n")
	r.Commit("init")
	r.Git("checkout", "-q", "-b", "next")
	r.Write("d/.gitignore", "# nothing ignored\n")
	r.Git("commit", "-q", "-am", "stop ignoring logs")
	r.Git("checkout", "-q", "main")
	r.Git("sparse-checkout", "set", "--no-cone", "/*", "!/d/.gitignore")
	if _, err := os.Stat(r.Path("d/.gitignore")); err == nil {
		t.Fatal("d/.gitignore is checked out: the case does not test what it says")
	}
	r.Write("d/x.log", "")
	s, err := proofService(t, r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	ctx := context.Background()
	if _, err := prove(ctx, s); err != nil {
		t.Fatal(err)
	}
	before, err := listedPathSet(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	r.Git("merge", "-q", "--ff-only", "next")
	now, err := listedPathSet(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if now == before {
		t.Fatal("the fast-forward did not change the path set: the case does not test what it says")
	}
	if got, ok := vouches(ctx, s); ok && got != now {
		t.Fatalf("the proof vouches for the path set before the fast-forward")
	}
}
