package freshness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/testgit"
	"github.com/freshctx/freshctx/internal/workspace"
)

// oneByOne is the operating system's file system under another name: a
// snapshot on it fingerprints each path on its own, never in a batch.
type oneByOne struct{ OSFS }

// TestBatchedCheckAgreesWithOneByOne edits, deletes, links and replaces
// the files of a small tree at random and checks after each step that a
// check of many stamps, which fingerprints their files in batches
// (prefetch), says for every file what a check fingerprinting them one by
// one says: the batches are a faster way to the same observations.
func TestBatchedCheckAgreesWithOneByOne(t *testing.T) {
	var paths []string
	for _, dir := range []string{"", "a/", "a/b/", "c/"} {
		for i := range 6 {
			paths = append(paths, fmt.Sprintf("%sf%d", dir, i))
		}
	}
	paths = append(paths, "c/link", "c/dangling", "a/b/dirlink/f0")
	if len(paths) < prefetchMin {
		t.Fatalf("%d paths: too few for the batch", len(paths))
	}
	rapid.Check(t, func(rt *rapid.T) {
		r := testgit.Plain(rt, t.TempDir())
		for i, p := range paths[:24] {
			r.Write(p, fmt.Sprintf("file %02d", i))
		}
		os.Symlink("../a/f0", r.Path("c/link"))
		os.Symlink("nowhere", r.Path("c/dangling"))
		os.Symlink("..", r.Path("a/b/dirlink"))
		ws, err := workspace.Discover(r.Dir)
		if err != nil {
			rt.Fatal(err)
		}
		ctx := context.Background()
		now := func() time.Time { return time.Now().Add(time.Second) }
		opt := Options{Now: now, RacyWindow: time.Nanosecond}
		snap, err := NewSnapshot(ctx, ws, paths, opt)
		if err != nil {
			rt.Fatal(err)
		}
		var sts []Stamp
		for _, p := range paths {
			st, err := snap.Stamp(ctx, []string{p}, time.Time{})
			if err != nil {
				rt.Fatal(err)
			}
			sts = append(sts, st)
		}
		all, err := snap.Stamp(ctx, paths, time.Time{})
		if err != nil {
			rt.Fatal(err)
		}
		sts = append(sts, all)
		// A step may meet a file where its folder was: it then changes nothing.
		write := func(abs, text string) {
			os.MkdirAll(filepath.Dir(abs), 0o755)
			os.WriteFile(abs, []byte(text), 0o644)
		}
		steps := rapid.IntRange(1, 12).Draw(rt, "steps")
		for range steps {
			p := rapid.SampledFrom(paths).Draw(rt, "path")
			abs := r.Path(p)
			switch rapid.IntRange(0, 6).Draw(rt, "action") {
			case 0: // same size, other bytes
				write(abs, "edited!")
			case 1: // another size
				write(abs, "edited to a longer text")
			case 2:
				os.RemoveAll(abs)
			case 3: // a folder where the file was
				os.RemoveAll(abs)
				os.MkdirAll(abs, 0o755)
			case 4: // a file where its folder was: the rest of it is gone
				dir := filepath.Dir(abs)
				if dir != r.Dir {
					os.RemoveAll(dir)
					os.WriteFile(dir, []byte("now a file"), 0o644)
				}
			case 5: // a link in its place
				os.RemoveAll(abs)
				os.MkdirAll(filepath.Dir(abs), 0o755)
				os.Symlink(rapid.SampledFrom([]string{"f1", "../f2", "missing", "."}).Draw(rt, "target"), abs)
			case 6:
				os.Chmod(abs, 0o600)
			}
			check := func(fsys FS) []Result {
				s, err := NewSnapshot(ctx, ws, nil, Options{FS: fsys, Now: now, RacyWindow: time.Nanosecond})
				if err != nil {
					rt.Fatal(err)
				}
				res, err := s.CheckMany(ctx, slices.Clone(sts))
				if err != nil {
					rt.Fatal(err)
				}
				return res
			}
			batched, single := check(OSFS{}), check(oneByOne{})
			if !reflect.DeepEqual(batched, single) {
				for i := range batched {
					if !reflect.DeepEqual(batched[i], single[i]) {
						rt.Fatalf("stamp %d: batched %+v, one by one %+v", i, batched[i], single[i])
					}
				}
			}
		}
	})
}

// TestPresentPathsAsLstatFinds holds PresentPaths to lstat, path by path:
// a dangling link is there, a path through a file or a missing folder is
// not; and to stopping when its context is done.
func TestPresentPathsAsLstatFinds(t *testing.T) {
	r := testgit.Plain(t, t.TempDir())
	var rels []string
	for i := range 3 * partShare { // more than one part
		rels = append(rels, fmt.Sprintf("d%d/f%03d", i%7, i))
		if i%5 != 0 {
			r.Write(rels[i], "x")
		}
	}
	r.Write("file", "x")
	os.Symlink("nowhere", r.Path("dangling"))
	os.Symlink("d1", r.Path("dirlink"))
	rels = append(rels, "file", "file/under", "dangling", "dirlink/f001", "dirlink", "missing/f", ".")
	slices.Sort(rels)
	got, err := PresentPaths(context.Background(), r.Dir, rels)
	if err != nil {
		t.Fatal(err)
	}
	for i, rel := range rels {
		_, err := os.Lstat(filepath.Join(r.Dir, rel))
		if got[i] != (err == nil) {
			t.Errorf("%s: present %v, lstat says %v", rel, got[i], err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := PresentPaths(ctx, r.Dir, rels); err == nil {
		t.Error("a done context: no error")
	}
}
